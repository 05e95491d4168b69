// The editor's desk in the browser: follow the file, copy the articles.
// Plain JavaScript, no build step; served by `crosspost serve` as /static/desk.js.
(function () {
  "use strict";

  const token = document.querySelector('meta[name="crosspost-token"]')?.content || "";
  const key = document.body.dataset.key;

  function live() {
    return document.getElementById("live");
  }

  function say(text, failed) {
    const status = document.getElementById("desk-status");
    if (!status) return;
    status.textContent = text;
    status.classList.toggle("failed", Boolean(failed));
  }

  function pause(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  // --- following the file: ask the server to tell us when it changes -------------------

  function liveUrl() {
    const query = new URLSearchParams(location.search);
    query.set("part", "live");
    return location.pathname + "?" + query.toString();
  }

  // The fresh part's images, loaded before it goes in: swapped in with images still
  // loading, the part above the reader is shorter for a moment, the same scrollY shows
  // text further down, and the browser's scroll anchoring then keeps that wrong place
  // when the images arrive. A slow or broken image waits no longer than `limit`.
  function imagesReady(part, limit) {
    const loads = Array.from(part.querySelectorAll("img"), (img) => img.decode().catch(() => {}));
    return Promise.race([Promise.all(loads), pause(limit)]);
  }

  // Swap the live part in place (no page load, so no flash) and keep the scroll position.
  async function refresh() {
    const response = await fetch(liveUrl(), { credentials: "same-origin" });
    if (!response.ok) throw new Error("HTTP " + response.status);
    const holder = document.createElement("div");
    holder.innerHTML = await response.text();
    const fresh = holder.querySelector("#live");
    if (!fresh) return;
    await imagesReady(fresh, 300);
    const x = window.scrollX;
    const y = window.scrollY;
    live().replaceWith(fresh);
    window.scrollTo(x, y);
  }

  async function follow() {
    for (;;) {
      try {
        const since = live().dataset.version;
        const response = await fetch(
          "/issue/" + key + "/changes?since=" + encodeURIComponent(since),
          { credentials: "same-origin" }
        );
        if (!response.ok) throw new Error("HTTP " + response.status);
        const answer = await response.json();
        if (answer.version !== live().dataset.version) await refresh();
      } catch (error) {
        await pause(1000); // the server restarting, the laptop waking up: try again
      }
    }
  }

  // --- copying ------------------------------------------------------------------------

  function plainText(html) {
    const holder = document.createElement("div");
    holder.innerHTML = html;
    return holder.innerText || holder.textContent || "";
  }

  function blob(text, type) {
    return new Blob([text], { type: type });
  }

  // The bytes as given, through a copy event: the asynchronous clipboard API parses and
  // re-serialises HTML on the way in, which is not "exactly the rendered article".
  function copyByEvent(html, text) {
    let written = false;
    const put = (event) => {
      event.clipboardData.setData("text/html", html);
      event.clipboardData.setData("text/plain", text);
      event.preventDefault();
      written = true;
    };
    document.addEventListener("copy", put, { once: true });
    try {
      document.execCommand("copy");
    } finally {
      document.removeEventListener("copy", put);
    }
    return written;
  }

  // HTML for the 公众号 editor, with the text as a fallback for places that take no HTML.
  async function copyHtml(html) {
    if (copyByEvent(html, plainText(html))) return;
    // The page lost the click's permission to copy (a slow upload): the asynchronous API.
    if (!navigator.clipboard || !window.ClipboardItem) throw new Error("the browser refused to copy");
    await navigator.clipboard.write([
      new ClipboardItem({
        "text/html": blob(html, "text/html"),
        "text/plain": blob(plainText(html), "text/plain"),
      }),
    ]);
  }

  async function copyText(text) {
    if (navigator.clipboard) {
      await navigator.clipboard.writeText(text);
      return;
    }
    const area = document.createElement("textarea");
    area.value = text;
    document.body.appendChild(area);
    area.select();
    const done = document.execCommand("copy");
    area.remove();
    if (!done) throw new Error("the browser refused to copy");
  }

  function source(channel) {
    const area = document.getElementById("copy-" + channel + "-source");
    return area ? area.value : "";
  }

  async function uploadedHtml(account) {
    const form = new URLSearchParams({ confirm: "yes", theme: currentTheme() });
    const response = await fetch("/issue/" + key + "/upload", {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-Crosspost-Token": token },
      body: form,
    });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok || answer.error) throw new Error(answer.error || "HTTP " + response.status);
    return answer.html;
  }

  function currentTheme() {
    const select = document.getElementById("theme");
    return select ? select.value : "";
  }

  async function act(button) {
    try {
      if (button.id === "copy-wechat") {
        await copyHtml(source("wechat"));
        say("已复制公众号文章(HTML),可粘贴到公众号编辑器");
      } else if (button.id === "copy-zhihu") {
        await copyText(source("zhihu"));
        say("已复制知乎 Markdown,可在知乎编辑器里导入");
      } else if (button.id === "upload-copy") {
        const account = button.dataset.account;
        if (!window.confirm("把文章里的图片上传到 " + account + " 的公众号素材(media/uploadimg),再复制?")) {
          return;
        }
        say("正在上传图片…");
        await copyHtml(await uploadedHtml(account));
        say("图片已上传到 " + account + ",文章已复制");
      }
    } catch (error) {
      say("没有复制:" + error.message, true);
    }
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (button) act(button);
  });

  document.addEventListener("change", (event) => {
    if (event.target.id !== "theme") return;
    const query = new URLSearchParams(location.search);
    query.set("theme", event.target.value);
    history.replaceState(null, "", location.pathname + "?" + query.toString());
    refresh().catch(() => say("主题没有切换成功", true));
  });

  // Tells the page's readers (and the browser tests) that the buttons now answer.
  document.documentElement.dataset.desk = "ready";
  if (key && live()) follow();
})();
