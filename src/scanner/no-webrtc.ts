/**
 * Runs in every frame of the scanner's browser before the page's own scripts: takes away the
 * interfaces that open connections of their own rather than requests through the proxy, namely
 * WebRTC (RTCPeerConnection and every RTC* interface, the webkit-prefixed ones included: STUN, TURN
 * and ICE over UDP) and WebTransport (QUIC). The browser is told the same by its own settings
 * (`browser.ts`); this is the second lock, and a frame that gets no init script still has the first.
 * A page that feature-tests for WebRTC sees a browser without it, as in some privacy browsers.
 */
export const NO_WEBRTC_SCRIPT = `(() => {
  const names = ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCDataChannel', 'RTCSessionDescription', 'RTCIceCandidate', 'WebTransport'];
  for (const name of Object.getOwnPropertyNames(globalThis)) {
    if (/^(?:webkit)?RTC|^WebTransport/.test(name)) names.push(name);
  }
  for (const name of names) {
    try { delete globalThis[name]; } catch {}
  }
})();`;
