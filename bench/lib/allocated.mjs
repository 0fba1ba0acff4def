/**
 * Bytes allocated per operation by `work` (which performs `count` of them), collected objects included: a
 * sampling heap profile at a 128-byte interval, through the inspector of this process.
 */
export async function allocatedPer(work, count) {
  const { Session } = await import("node:inspector");
  const session = new Session();
  session.connect();
  const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
  await post("HeapProfiler.startSampling", { samplingInterval: 128, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  await work();
  const { profile } = await post("HeapProfiler.stopSampling");
  session.disconnect();
  let total = 0;
  const walk = (node) => {
    total += node.selfSize;
    for (const next of node.children) walk(next);
  };
  walk(profile.head);
  return total / count;
}
