/**
 * The errors the SDK raises before a run starts (programmer and configuration errors).
 * Once a run has started nothing throws: failures arrive as messages and stop reasons.
 *
 * Each error has a stable `code` so hosts map it without parsing text (the CLI turns them
 * into exit code 2 and one clear line), and a message that says what to do.
 */
export type SdkErrorCode =
  | "model_not_configured"
  | "half_model_pair"
  | "unknown_model"
  | "workspace_not_found"
  | "session_not_found"
  | "session_unreadable"
  | "invalid_argument"
  | "sandbox_unavailable"
  /** Another process (or another open Session) runs the session: one writer per session. */
  | "session_busy";

export class PenguinError extends Error {
  readonly code: SdkErrorCode;

  constructor(code: SdkErrorCode, message: string) {
    super(message);
    this.name = "PenguinError";
    this.code = code;
  }
}

export function isPenguinError(e: unknown): e is PenguinError {
  return e instanceof PenguinError;
}
