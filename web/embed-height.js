// An embedded view tells the page that frames it how tall it is, so the
// frame can show it whole (docs/links.md, "Embedding"). The protocol:
//
//   frame → parent  {commlab: "ready"}             to any origin; carries nothing
//   parent → frame  {commlab: "hello"}             to commlab's origin only
//   frame → parent  {commlab: "height", height: N} to the origin that said hello,
//                                                  again whenever the height changes
//
// The frame answers only its own parent window, and only after that window
// said hello; the parent's snippet accepts only messages from commlab's
// origin and from its own frame. Without the snippet's script nothing is
// sent after "ready" and the frame keeps the height the snippet gave it.
(function () {
  var flag = new URLSearchParams(location.search).get('embed');
  if ((flag !== '1' && flag !== 'true') || window.parent === window) return;
  var peer = null;
  var last = -1;
  function height() {
    var app = document.querySelector('.app');
    var box = (app || document.body).getBoundingClientRect();
    return Math.ceil(box.bottom + window.scrollY);
  }
  function send() {
    if (!peer) return;
    var h = height();
    if (h === last || h <= 0) return;
    last = h;
    // A page opened from a file has the origin "null", which postMessage cannot name.
    peer.source.postMessage({ commlab: 'height', height: h }, peer.origin === 'null' ? '*' : peer.origin);
  }
  window.addEventListener('message', function (e) {
    if (e.source !== window.parent || !e.data || e.data.commlab !== 'hello') return;
    peer = { source: e.source, origin: e.origin };
    last = -1;
    send();
  });
  new ResizeObserver(send).observe(document.documentElement);
  function watchApp() {
    var app = document.querySelector('.app');
    if (app) new ResizeObserver(send).observe(app);
    else setTimeout(watchApp, 50);
  }
  watchApp();
  window.parent.postMessage({ commlab: 'ready' }, '*');
})();
