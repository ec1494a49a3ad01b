// d3 for the views. d3 7's ES module build (dist/d3.mjs) only re-exports the
// d3-* packages by bare name, which a browser cannot resolve without a
// bundler; its UMD bundle is self-contained. index.html therefore loads
// /vendor/d3/d3.min.js (served same-origin by server.mjs from
// node_modules/d3/dist, never from a CDN) as a deferred classic script, which
// runs before any module; this module hands its global to the views.
const { d3 } = globalThis;
if (!d3) throw new Error('d3 did not load (vendor/d3/d3.min.js); serve the page with web/server.mjs (npm start)');
export default d3;
