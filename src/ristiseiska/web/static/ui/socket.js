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
    let closed = false, delay = 500, timer = null;
    const open = () => {
      const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/${id}`);
      wsRef.current = ws;
      ws.onopen = () => {
        delay = 500;
        setConn("open");
        ws.send(JSON.stringify({ type: "lang", lang: langRef.current }));
        const saved = localStorage.getItem(`rs.seat.${id}`);
        if (saved) {
          try { const s = JSON.parse(saved); ws.send(JSON.stringify({ type: "join", seat: s.seat, token: s.token })); } catch (e) { /* ignore */ }
        }
      };
      ws.onmessage = (ev) => {
        const msg = JSON.parse(ev.data);
        if (msg.type === "state") {
          setState((prev) => (msg.table || !prev ? msg : { ...msg, table: prev.table }));
          setPending(false);
        } else if (msg.type === "error") {
          setPending(false);
          if (msg.code === "bad-token") localStorage.removeItem(`rs.seat.${id}`);
          if (msg.code === "no-table") { closed = true; setConn("missing"); }
          onErrorRef.current(msg);
        } else if (msg.type === "chat") receiveChat(id, msg); // issue 20 (chat.js)
        else if (msg.type === "hint") setHint(msg);
        else if (msg.type === "notice" && onNoticeRef.current) onNoticeRef.current(msg);
        else if (msg.type === "ack") { setHint(null); setPending(false); }
      };
      ws.onclose = () => {
        setPending(false);
        if (closed) return;
        setConn("reconnecting");
        timer = setTimeout(open, delay);
        delay = Math.min(delay * 2, 8000);
      };
    };
    open();
    return () => { closed = true; clearTimeout(timer); if (wsRef.current) wsRef.current.close(); };
  }, [id]);
  const send = useCallback((msg) => {
    const ws = wsRef.current;
    if (ws && ws.readyState === 1) { ws.send(JSON.stringify(msg)); return true; }
    return false;
  }, []);
  useEffect(() => { send({ type: "lang", lang }); }, [lang]);
  return { state, conn, hint, setHint, pending, setPending, send, rejoin: () => wsRef.current && wsRef.current.close() };
}
