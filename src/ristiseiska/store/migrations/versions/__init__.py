"""The store's revisions, oldest first: each creates only what a database lacks."""
