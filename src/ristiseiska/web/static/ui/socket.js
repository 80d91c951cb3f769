import { html, useState, useEffect, useLayoutEffect, useRef, useCallback } from "../vendor/htm-preact-standalone.mjs";
import { receiveChat } from "./chat.js";

// --- the table -------------------------------------------------------------------------------
export function useTableSocket(id, lang, onError, onNotice = null) {
  const [state, setState] = useState(null);
  const [conn, setConn] = useState("connecting");
  const [hint, setHint] = useState(null);
  const [pending, setPending] = useState(false);
  const wsRef = useRef(null);
  const langRef = useRef(lang);
  langRef.current = lang;
  const onErrorRef = useRef(onError);
  onErrorRef.current = onError;
  const onNoticeRef = useRef(onNotice);
  onNoticeRef.current = onNotice;
  useEffect(() => {
    // Reconnecting (issue 46): a socket that closes, or stays silent — a ping after
    // HEARTBEAT_IDLE ms without a frame, no answer in HEARTBEAT_WAIT ms — or does not open in
    // OPEN_WAIT ms is left, and a new one is opened after a growing pause with jitter (0.5 s
    // doubling to 8 s; at once when the server says another process now has the table). It
    // first asks /api/tables/{id}/here, which a live process answers at once: nginx gives up
    // on a process that does not answer that in 3 s, sets it aside, and the next process
    // takes the table over from the database, so the new socket reaches a process that has it.
    const HEARTBEAT_IDLE = 3000, HEARTBEAT_WAIT = 2000, OPEN_WAIT = 6000;
    let closed = false, delay = 500, timer = null, beat = null, failed = false;
    let heard = Date.now(), pinged = 0;
    const leave = (ws, wait) => {
      ws.onopen = ws.onmessage = ws.onclose = null;
      try { ws.close(); } catch (e) { /* already closed */ }
      if (closed) return;
      setPending(false);
      setConn("reconnecting");
      failed = true;
      clearTimeout(timer);
      timer = setTimeout(open, wait * (0.5 + Math.random() / 2));
      delay = Math.min(delay * 2, 8000);
    };
    const probe = async () => {
      if (!failed) return;
      try {
        await fetch(`/api/tables/${id}/here`, { cache: "no-store", signal: AbortSignal.timeout(8000) });
      } catch (e) { /* the socket tries all the same */ }
    };
    const open = async () => {
      await probe();
      if (closed) return;
      const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/${id}`);
      wsRef.current = ws;
      heard = Date.now(); pinged = 0;
      ws.onopen = () => {
        delay = 500;
        failed = false;
        heard = Date.now();
        setConn("open");
        ws.send(JSON.stringify({ type: "lang", lang: langRef.current }));
        const saved = localStorage.getItem(`rs.seat.${id}`);
        if (saved) {
          try { const s = JSON.parse(saved); ws.send(JSON.stringify({ type: "join", seat: s.seat, token: s.token })); } catch (e) { /* ignore */ }
        }
      };
      ws.onmessage = (ev) => {
        heard = Date.now(); pinged = 0;
        const msg = JSON.parse(ev.data);
        if (msg.type === "state") {
          setState((prev) => (msg.table || !prev ? msg : { ...msg, table: prev.table }));
          setPending(false);
        } else if (msg.type === "error") {
          setPending(false);
          if (msg.code === "bad-token") localStorage.removeItem(`rs.seat.${id}`);
          if (msg.code === "no-table") { closed = true; setConn("missing"); }
          if (msg.code === "moved") { delay = 200; return; } // the socket closes; reconnect
          onErrorRef.current(msg);
        } else if (msg.type === "chat") receiveChat(id, msg); // issue 20 (chat.js)
        else if (msg.type === "hint") setHint(msg);
        else if (msg.type === "notice" && onNoticeRef.current) onNoticeRef.current(msg);
        else if (msg.type === "ack") { setHint(null); setPending(false); }
      };
      ws.onclose = () => leave(ws, delay);
    };
    beat = setInterval(() => {
      const ws = wsRef.current;
      if (closed || !ws || ws.onclose === null) return;
      const now = Date.now();
      if (ws.readyState === 0 && now - heard > OPEN_WAIT) leave(ws, delay);
      else if (ws.readyState === 1 && pinged && now - pinged > HEARTBEAT_WAIT) leave(ws, delay);
      else if (ws.readyState === 1 && !pinged && now - heard > HEARTBEAT_IDLE) {
        pinged = now;
        ws.send(JSON.stringify({ type: "ping" }));
      }
    }, 500);
    open();
    return () => { closed = true; clearTimeout(timer); clearInterval(beat); if (wsRef.current) wsRef.current.close(); };
  }, [id]);
  const send = useCallback((msg) => {
    const ws = wsRef.current;
    if (ws && ws.readyState === 1) { ws.send(JSON.stringify(msg)); return true; }
    return false;
  }, []);
  useEffect(() => { send({ type: "lang", lang }); }, [lang]);
  return { state, conn, hint, setHint, pending, setPending, send, rejoin: () => wsRef.current && wsRef.current.close() };
}
