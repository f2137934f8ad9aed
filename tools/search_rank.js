// The site search's ranking without a browser: runs the search worker that mkdocs-material built (its own
// lunr index, boosts and post-query scoring) in node on the built site's search index, and prints the pages in
// the order the search box lists them.
//
//   NO_MKDOCS_2_WARNING=1 mkdocs build --strict --site-dir /tmp/site
//   node tools/search_rank.js /tmp/site "perfect play" sprt
const fs = require("fs"), path = require("path"), vm = require("vm");
const [site, ...queries] = process.argv.slice(2);
if (!site || !queries.length) {
  console.error("usage: node tools/search_rank.js SITE_DIR QUERY...");
  process.exit(2);
}
const dir = path.join(site, "assets/javascripts/workers");
const file = fs.readdirSync(dir).find(f => /^search\..*\.min\.js$/.test(f));
let onmessage = null, reply = null;
const ctx = { console, setTimeout, clearTimeout,
  addEventListener: (type, fn) => { onmessage = fn; },
  postMessage: message => { reply = message; },
  importScripts: () => {} };
ctx.self = ctx;
vm.createContext(ctx);
vm.runInContext(fs.readFileSync(path.join(dir, file), "utf8"), ctx);
const index = JSON.parse(fs.readFileSync(path.join(site, "search/search_index.json"), "utf8"));
(async () => {
  await onmessage({ data: { type: 0, data: { ...index, options: { suggest: false } } } });  // setup
  for (const query of queries) {
    await onmessage({ data: { type: 2, data: query } });  // a query; the reply lists the pages, best first
    console.log(`${JSON.stringify(query)}:`);
    reply.data.items.slice(0, 8).forEach((group, i) => {
      const best = Math.max(...group.map(item => item.score));
      console.log(`  ${i + 1}. ${group[0].location.split("#")[0] || "(home)"}  score ${best.toFixed(1)}`);
    });
  }
})();
