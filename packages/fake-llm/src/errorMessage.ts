/** The message of anything thrown (fake-llm stands alone: the app's is @threadline/protocol's errorMessage). */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
