// .ci/run's last step. Sums every Vitest JSON report in a folder into the one line CI reads: "N passed, N failed".
// A failed build counts as one failure, so a red `tsc -b` can never print an all-green line.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const [dir = "test-artifacts", buildFailed = "0"] = process.argv.slice(2);
let passed = 0;
let failed = Number(buildFailed) > 0 ? 1 : 0;
let reports = 0;
for (const name of readdirSync(dir).filter((n) => n.endsWith(".json"))) {
  try {
    const r = JSON.parse(readFileSync(join(dir, name), "utf8"));
    passed += r.numPassedTests ?? 0;
    const failedTests = r.numFailedTests ?? 0;
    // A suite that fails to load has no failed tests of its own; count it once.
    const brokenSuites = failedTests === 0 ? (r.numFailedTestSuites ?? 0) : 0;
    failed += failedTests + brokenSuites;
    reports++;
  } catch {
    failed++;
  }
}
if (reports === 0) failed++;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
