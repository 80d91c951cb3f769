CREATE TABLE rs_rates (
	key VARCHAR(160) NOT NULL, 
	tokens DOUBLE PRECISION NOT NULL, 
	at DOUBLE PRECISION NOT NULL, 
	PRIMARY KEY (key)
);

CREATE INDEX ix_rs_rates_at ON rs_rates (at);

CREATE TABLE rs_tables (
	id VARCHAR(64) NOT NULL, 
	created DOUBLE PRECISION NOT NULL, 
	config TEXT NOT NULL, 
	finished BOOLEAN NOT NULL, 
	PRIMARY KEY (id)
);

CREATE TABLE rs_clock (
	table_id VARCHAR(64) NOT NULL, 
	state TEXT NOT NULL, 
	PRIMARY KEY (table_id), 
	FOREIGN KEY(table_id) REFERENCES rs_tables (id)
);

CREATE TABLE rs_clock_timeouts (
	table_id VARCHAR(64) NOT NULL, 
	deal INTEGER NOT NULL, 
	ply INTEGER NOT NULL, 
	PRIMARY KEY (table_id, deal, ply), 
	FOREIGN KEY(table_id) REFERENCES rs_tables (id)
);

CREATE TABLE rs_deals (
	table_id VARCHAR(64) NOT NULL, 
	deal INTEGER NOT NULL, 
	started DOUBLE PRECISION NOT NULL, 
	PRIMARY KEY (table_id, deal), 
	FOREIGN KEY(table_id) REFERENCES rs_tables (id)
);

CREATE TABLE rs_forced_moves (
	table_id VARCHAR(64) NOT NULL, 
	deal INTEGER NOT NULL, 
	ply INTEGER NOT NULL, 
	PRIMARY KEY (table_id, deal, ply), 
	FOREIGN KEY(table_id) REFERENCES rs_tables (id)
);

CREATE TABLE rs_moves (
	table_id VARCHAR(64) NOT NULL, 
	deal INTEGER NOT NULL, 
	ply INTEGER NOT NULL, 
	seat INTEGER NOT NULL, 
	move VARCHAR(32) NOT NULL, 
	epoch INTEGER, 
	move_id TEXT, 
	PRIMARY KEY (table_id, deal, ply), 
	FOREIGN KEY(table_id) REFERENCES rs_tables (id)
);

CREATE TABLE rs_open (
	table_id VARCHAR(64) NOT NULL, 
	created DOUBLE PRECISION NOT NULL, 
	PRIMARY KEY (table_id), 
	FOREIGN KEY(table_id) REFERENCES rs_tables (id)
);

CREATE INDEX ix_rs_open_created ON rs_open (created);

CREATE TABLE rs_owner (
	table_id VARCHAR(64) NOT NULL, 
	owner VARCHAR(128) NOT NULL, 
	epoch INTEGER NOT NULL, 
	taken DOUBLE PRECISION NOT NULL, 
	PRIMARY KEY (table_id), 
	FOREIGN KEY(table_id) REFERENCES rs_tables (id)
);

CREATE TABLE rs_seats (
	table_id VARCHAR(64) NOT NULL, 
	seat INTEGER NOT NULL, 
	name VARCHAR(64) NOT NULL, 
	token_hash VARCHAR(128), 
	PRIMARY KEY (table_id, seat), 
	FOREIGN KEY(table_id) REFERENCES rs_tables (id)
);

CREATE TABLE rs_table_state (
	table_id VARCHAR(64) NOT NULL, 
	started BOOLEAN NOT NULL, 
	standins TEXT NOT NULL, 
	PRIMARY KEY (table_id), 
	FOREIGN KEY(table_id) REFERENCES rs_tables (id)
);

CREATE TABLE rs_analyses (
	table_id VARCHAR(64) NOT NULL, 
	deal INTEGER NOT NULL, 
	seat INTEGER NOT NULL, 
	budget VARCHAR(64) NOT NULL, 
	created DOUBLE PRECISION NOT NULL, 
	data TEXT NOT NULL, 
	PRIMARY KEY (table_id, deal, seat), 
	FOREIGN KEY(table_id) REFERENCES rs_tables (id)
);
