/**
 * Module hooks (registered by startup.mjs): report every generated validator module that Node loads, so the
 * benchmark can show how many a server loads at start-up. Runs on Node's hooks thread; talks over a port.
 */
let port;

export async function initialize(data) {
  port = data.port;
}

export async function load(url, context, nextLoad) {
  if (/\/validators\/[^/]+\.gen\.js$/.test(url)) port.postMessage(url);
  return nextLoad(url, context);
}
