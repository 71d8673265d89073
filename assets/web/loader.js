// Starts an offline page (an exported replay, an offline study), which fetches nothing: its data
// and its JS modules travel inside it as one gzipped payload (#pisa-payload, written by
// pisa3d/web/offline_page.py; the modules in load order, by pisa3d/web/modules.py). Each module
// becomes a blob URL, dependencies first, with its relative imports pointed at the blobs already
// made; then the payload's entry module starts: start(data, load), load(path) importing another.
(function () {
  "use strict";
  async function unpack() {
    const base64 = document.getElementById("pisa-payload").textContent.trim();
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  function moduleUrls(modules) {
    const urls = {};
    for (const module of modules) {
      let text = module.text;
      for (const [specifier, path] of Object.entries(module.imports)) {
        for (const quote of ['"', "'"]) text = text.split(quote + specifier + quote).join(quote + urls[path] + quote);
      }
      urls[module.path] = URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
    }
    return urls;
  }

  unpack()
    .then(async ({ data, modules, entry }) => {
      const urls = moduleUrls(modules.modules);
      await (await import(urls[entry])).start(data, (path) => import(urls[path]));
    })
    .catch((error) => {
      document.querySelector("main").textContent = `This page could not start: ${error.message}`;
      throw error;
    });
})();
