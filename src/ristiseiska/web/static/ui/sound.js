
// A short two-note chime made on the spot (no sound file to load); only after the player
// turned sound on, which also unlocks audio in the browser.
export let audioCtx = null;
export function chime() {
  try {
    audioCtx = audioCtx || new AudioContext();
    const now = audioCtx.currentTime;
    [[660, 0], [880, 0.12]].forEach(([f, at]) => {
      const o = audioCtx.createOscillator(), g = audioCtx.createGain();
      o.frequency.value = f; o.type = "sine";
      g.gain.setValueAtTime(0.0001, now + at);
      g.gain.exponentialRampToValueAtTime(0.15, now + at + 0.02);
      g.gain.exponentialRampToValueAtTime(0.0001, now + at + 0.25);
      o.connect(g).connect(audioCtx.destination);
      o.start(now + at); o.stop(now + at + 0.3);
    });
  } catch (e) { /* no audio here: the title still tells */ }
}
