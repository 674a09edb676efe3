/**
 * @penguin/testkit: the fake model at the wire. Start a scripted server with `startTestkit`,
 * point a real model entry at `baseUrl(protocol)`, then assert on `requests` and
 * `violations`. The script language lives in script.ts; fixture helpers replay the recorded
 * provider streams; `checkPairing` is the tool-call invariant the server runs on every request.
 */
export * from "./script.js";
export { startTestkit, baseUrlFor, type Testkit, type TestkitOptions, type Violation } from "./server.js";
export { checkPairing } from "./pairing.js";
export { normalizeRequest, type NormalizedRequest } from "./normalize/index.js";
export {
  FIXTURES_ENV,
  fixtureEvents,
  fixtureLines,
  fixturePath,
  fixtureProtocol,
  fixturesDir,
  fixtureToSse,
  listFixtures,
  readFixture,
} from "./fixtures.js";
export { corruptBytes, splitBody } from "./replay.js";
export { seededRandom } from "./prng.js";
export { splitText, DEFAULT_CHUNK_SIZE } from "./chunk.js";
export { errorBody } from "./http-errors.js";
export { FAKE_MODEL_IDS } from "./model-list.js";
export { MALFORMED_LINE } from "./play.js";
export { formatSse, type SseEvent } from "./sse.js";
