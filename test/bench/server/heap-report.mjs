// Where the server's memory is, from a V8 heap snapshot (`run.ts --snapshot-at-mb N` writes one
// of the server process when its RSS first reaches N MB):
//
//   node test/bench/server/heap-report.mjs FILE.heapsnapshot [Class,Class…]
//
// Prints the self size per node type, the strings grouped by the edge that holds them (module
// sources, source maps, request bodies, SSE frames…), and for each named class (default: the
// per-session objects of the server and core) the number of instances, their retained size
// (dominator tree: what would be freed with them) and the fields that own most of it. Plain
// JavaScript over the snapshot's JSON, no dependency, so it runs on any snapshot with node alone;
// the arrays are typed because a 200-session snapshot has close to a million nodes.
import { readFileSync } from "node:fs";

const [file, classList] = process.argv.slice(2);
if (file === undefined) {
  process.stderr.write("usage: node test/bench/server/heap-report.mjs FILE.heapsnapshot [Class,Class…]\n");
  process.exit(2);
}
const classes = (classList ?? "SessionHub,SessionChannel,LiveLog,Session,Environment,ContextEngine,FiberRuntime").split(",");
const snap = JSON.parse(readFileSync(file, "utf8"));
const { node_fields: nodeFields, edge_fields: edgeFields, node_types: nodeTypes, edge_types: edgeTypes } = snap.snapshot.meta;
const NF = nodeFields.length;
const EF = edgeFields.length;
const types = nodeTypes[0];
const edgeKinds = edgeTypes[0];
const [T, NAME, SIZE, EDGES] = ["type", "name", "self_size", "edge_count"].map((f) => nodeFields.indexOf(f));
const [ET, ENAME, ETO] = ["type", "name_or_index", "to_node"].map((f) => edgeFields.indexOf(f));
const { nodes, edges, strings } = snap;
const N = nodes.length / NF;
const WEAK = edgeKinds.indexOf("weak");
const SHORTCUT = edgeKinds.indexOf("shortcut");
const mb = (bytes) => `${(bytes / 1048576).toFixed(2).padStart(7)} MB`;
const typeOf = (n) => types[nodes[n * NF + T]];
const nameOf = (n) => String(strings[nodes[n * NF + NAME]]);
const edgeName = (e) => {
  const kind = edgeKinds[edges[e + ET]];
  return kind === "element" || kind === "hidden" ? `[${kind}]` : String(strings[edges[e + ENAME]]);
};

const firstEdge = new Int32Array(N + 1);
for (let n = 0, e = 0; n < N; n++) {
  firstEdge[n] = e;
  e += nodes[n * NF + EDGES] * EF;
}
firstEdge[N] = edges.length;
const strong = (e) => edges[e + ET] !== WEAK && edges[e + ET] !== SHORTCUT;

// Predecessors (strong edges only), as one flat array indexed by predStart.
const predStart = new Int32Array(N + 1);
for (let e = 0; e < edges.length; e += EF) if (strong(e)) predStart[edges[e + ETO] / NF + 1]++;
for (let i = 1; i <= N; i++) predStart[i] += predStart[i - 1];
const preds = new Int32Array(predStart[N]);
const fill = predStart.slice();
const holder = new Int32Array(N).fill(-1);
const holderEdge = new Int32Array(N).fill(-1);
for (let n = 0; n < N; n++) {
  for (let e = firstEdge[n]; e < firstEdge[n + 1]; e += EF) {
    if (!strong(e)) continue;
    const to = edges[e + ETO] / NF;
    preds[fill[to]++] = n;
    if (holder[to] === -1) {
      holder[to] = n;
      holderEdge[to] = e;
    }
  }
}

// Post-order from the root, then immediate dominators (Cooper, Harvey, Kennedy), then retained sizes.
const post = new Int32Array(N).fill(-1);
const order = new Int32Array(N);
let count = 0;
const stack = new Int32Array(N);
const cursor = new Int32Array(N);
const seen = new Uint8Array(N);
let sp = 0;
cursor[0] = firstEdge[0];
seen[0] = 1;
while (sp >= 0) {
  const n = stack[sp];
  let descended = false;
  while (cursor[sp] < firstEdge[n + 1]) {
    const e = cursor[sp];
    cursor[sp] += EF;
    const to = edges[e + ETO] / NF;
    if (!strong(e) || seen[to]) continue;
    seen[to] = 1;
    stack[++sp] = to;
    cursor[sp] = firstEdge[to];
    descended = true;
    break;
  }
  if (!descended) {
    post[n] = count;
    order[count++] = n;
    sp--;
  }
}
const idom = new Int32Array(N).fill(-1);
idom[0] = 0;
const intersect = (a, b) => {
  while (a !== b) {
    while (post[a] < post[b]) a = idom[a];
    while (post[b] < post[a]) b = idom[b];
  }
  return a;
};
for (let changed = true; changed; ) {
  changed = false;
  for (let i = count - 2; i >= 0; i--) {
    const n = order[i];
    let d = -1;
    for (let p = predStart[n]; p < predStart[n + 1]; p++) {
      const q = preds[p];
      if (post[q] === -1 || idom[q] === -1) continue;
      d = d === -1 ? q : intersect(q, d);
    }
    if (d !== -1 && idom[n] !== d) {
      idom[n] = d;
      changed = true;
    }
  }
}
const retained = new Float64Array(N);
for (let i = 0; i < count; i++) {
  const n = order[i];
  retained[n] += nodes[n * NF + SIZE];
  if (n !== 0) retained[idom[n]] += retained[n];
}

const byType = new Map();
for (let n = 0; n < N; n++) byType.set(typeOf(n), (byType.get(typeOf(n)) ?? 0) + nodes[n * NF + SIZE]);
process.stdout.write(`${file}: ${N} nodes, ${mb(retained[0]).trim()} reachable\n  by type: ${[...byType].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([t, s]) => `${t} ${mb(s).trim()}`).join(", ")}\n`);

const stringsBy = new Map();
for (let n = 0; n < N; n++) {
  if (!typeOf(n).includes("string") || holder[n] === -1) continue;
  const key = `${edgeName(holderEdge[n])} <- ${typeOf(holder[n])} ${nameOf(holder[n]).slice(0, 40)}`;
  const v = stringsBy.get(key) ?? { count: 0, bytes: 0 };
  v.count++;
  v.bytes += nodes[n * NF + SIZE];
  stringsBy.set(key, v);
}
process.stdout.write("\nstrings by the edge that holds them (first holder):\n");
for (const [key, v] of [...stringsBy].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 15)) process.stdout.write(`${mb(v.bytes)} ×${String(v.count).padStart(7)}  ${key}\n`);

process.stdout.write("\nretained per class (dominator tree), and the fields that own it:\n");
for (const cls of classes) {
  let instances = 0;
  let total = 0;
  const fields = new Map();
  for (let n = 0; n < N; n++) {
    if (typeOf(n) !== "object" || nameOf(n) !== cls || post[n] === -1) continue;
    instances++;
    total += retained[n];
    for (let e = firstEdge[n]; e < firstEdge[n + 1]; e += EF) {
      const to = edges[e + ETO] / NF;
      if (!strong(e) || idom[to] !== n) continue;
      const name = edgeName(e);
      fields.set(name, (fields.get(name) ?? 0) + retained[to]);
    }
  }
  if (instances === 0) continue;
  process.stdout.write(`${mb(total)}  ${cls} ×${instances} (${(total / instances / 1024).toFixed(1)} KB each)\n`);
  for (const [name, bytes] of [...fields].sort((a, b) => b[1] - a[1]).slice(0, 4)) {
    if (bytes / instances >= 256) process.stdout.write(`             ${(bytes / instances / 1024).toFixed(1).padStart(6)} KB each in ${name}\n`);
  }
}
