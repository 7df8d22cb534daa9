import * as z from 'zod';

export const ErrorCodeSchema = z.enum([
  'invalid_input',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'busy',
  'provider_error',
  'internal',
  // A request over the size the runtime takes (browser mode's body limit): see CHAT_TEXT_MAX.
  'too_large',
]);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

/** One zod issue of a refused input, as data: where (`path` into the input), zod's `code`, its message. */
export const InputIssueSchema = z.object({
  path: z.array(z.union([z.string(), z.number()])),
  code: z.string(),
  message: z.string(),
});
export type InputIssue = z.infer<typeof InputIssueSchema>;

/** Error details: for `invalid_input` from a route's schema, the issues (at most MAX_INPUT_ISSUES). */
export const ErrorDetailsSchema = z.object({ issues: z.array(InputIssueSchema) });
export type ErrorDetails = z.infer<typeof ErrorDetailsSchema>;

export const MAX_INPUT_ISSUES = 20;

export const RpcErrorInfoSchema = z.object({
  code: ErrorCodeSchema,
  /** One readable sentence. */
  message: z.string(),
  details: ErrorDetailsSchema.optional(),
  /**
   * Why, as a stable word the renderer says in the user's language (`credential`, `duplicate`,
   * `gone`, `not_in_project`, `not_an_export`…), when the route gives one.
   */
  reason: z.string().optional(),
});
export type RpcErrorInfo = z.infer<typeof RpcErrorInfoSchema>;

export type RpcResult<T> = { ok: true; data: T } | { ok: false; error: RpcErrorInfo };

/** An error an AppApi implementation throws on purpose; the router turns it into a result. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** A stable word for why (RpcErrorInfo.reason). */
    readonly reason?: string,
  ) {
    super(message);
    this.name = 'AppError';
  }
}
