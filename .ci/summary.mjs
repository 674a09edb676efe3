// .ci/run's last step: the one line CI reads, "N passed, N failed", summed over every suite.
// Arguments: the reports folder, then one `name=status` per suite (its Vitest JSON report is
// `<name>.json`, its exit status the number), then `build=status`. A suite run more than once
// (the browser suite's three runs) is one argument per run, each with its own report, and
// each run's tests count. One line per suite comes first, so a log shows which run was red.
// Nothing can make the line look greener than the run was: a suite whose report is missing
// or unreadable, or that exited non-zero without a failed test of its own (a startup error,
// a suite that did not load), counts as one failure, and so does a failed build or typecheck.
import { readFileSync } from "node:fs";
import { join } from "node:path";

const [dir = "test-artifacts", ...suites] = process.argv.slice(2);
let passed = 0;
let failed = 0;
for (const spec of suites) {
  const [name, statusText = "0"] = spec.split("=");
  const status = Number(statusText);
  if (name === "build") {
    if (status !== 0) {
      failed++;
      console.log("summary: the build or typecheck failed (counted as 1 failure)");
    }
    continue;
  }
  let report;
  try {
    report = JSON.parse(readFileSync(join(dir, `${name}.json`), "utf8"));
  } catch {
    failed++;
    console.log(`summary: ${name}: no readable report (status ${status}; counted as 1 failure)`);
    continue;
  }
  const passedTests = report.numPassedTests ?? 0;
  const failedTests = report.numFailedTests ?? 0;
  // A suite that fails to load has no failed tests of its own; count it once.
  const brokenSuites = failedTests === 0 ? (report.numFailedTestSuites ?? 0) : 0;
  const unexplained = failedTests + brokenSuites === 0 && status !== 0 ? 1 : 0;
  if (unexplained > 0) console.log(`summary: ${name} exited ${status} with no failed test (counted as 1 failure)`);
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  console.log(`summary: ${name}: ${passedTests} passed, ${failedTests + brokenSuites + unexplained} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`);
  passed += passedTests;
  failed += failedTests + brokenSuites + unexplained;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
