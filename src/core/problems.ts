// Every problem a client can meet, in one list: its stable code (the `code` of the
// problem+json body and the end of its `type` URN), its HTTP status, and what it means.
// Code throws `new AppError(code, detail)` (src/http/errors.ts) and the status comes from
// here, so a code cannot drift between statuses. docs/api.md "General rules" explains the format.

export const PROBLEMS = {
  // 400: the request itself is wrong
  invalid_request: [400, 'The request names something that does not fit; `errors` lists each field at fault.'],
  validation_failed: [400, 'The request does not match the schema; `errors` lists each field at fault.'],
  invalid_json: [400, 'The body is not JSON, or is empty where JSON is expected.'],
  invalid_cursor: [400, 'The `cursor` is not one this server made; take it from the `Link` header.'],
  malformed_request: [400, 'The request is not valid HTTP/1.1.'],
  invalid_client_metadata: [400, 'An OAuth client registration was refused (RFC 7591).'],
  password_mismatch: [400, 'The two passwords typed into a form differ.'],
  // 401 and 403: who is asking
  unauthorized: [401, 'The route needs a credential and none was sent.'],
  invalid_token: [401, 'The token is unknown, expired or revoked.'],
  insufficient_scope: [401, "The token lacks the route's permission (named in WWW-Authenticate)."],
  csrf_failed: [403, 'A browser request that changes data came without the CSRF token of its session.'],
  setup_link_invalid: [403, 'The first-run setup link expired, was used, or an account exists already.'],
  service_disabled: [403, 'The tracker is disabled and stores nothing.'],
  // 404, 405: where
  not_found: [404, 'No such object, or one the caller may not see (they answer alike).'],
  method_not_allowed: [405, 'The path exists, but not for this method (Allow lists those it takes).'],
  // 408, 409: state
  request_timeout: [408, 'The request did not arrive in time.'],
  username_taken: [409, 'The username is taken (compared without case).'],
  request_in_flight: [409, 'A request with the same Idempotency-Key is still being processed.'],
  too_many_views: [409, 'The person keeps the most views allowed.'],
  delivery_not_retryable: [409, 'Only a failed or cancelled delivery can be tried again.'],
  service_needs_secrets: [409, 'A service cannot be enabled without its secrets; `errors` names each.'],
  // 413-431: size and type
  payload_too_large: [413, 'The body is larger than the limit for this route.'],
  uri_too_long: [414, 'The path or a path parameter is too long.'],
  unsupported_media_type: [415, 'The body or the uploaded file is of a type this route does not take.'],
  range_not_satisfiable: [416, 'The Range asked for lies outside the file.'],
  idempotency_key_reused: [422, 'The Idempotency-Key was used before with a different body.'],
  media_metadata_too_large: [422, "The file's metadata is larger than the limit."],
  media_metadata_invalid: [422, "The file's EXIF metadata is malformed."],
  media_too_many_pixels: [422, 'The decoded image would have more pixels than the limit.'],
  media_processing_failed: [422, 'The file could not be processed.'],
  media_processing_timeout: [422, 'Processing the file took longer than its time limit.'],
  service_connect_failed: [
    422,
    'A service could not be connected by signing in: its server could not be reached, refused, or the sign-in was not finished; `detail` (and `errors`, when a field is at fault) says why.',
  ],
  // 429: too often
  too_many_registrations: [
    429,
    'The address registered as many apps (OAuth clients) as it may in an hour; Retry-After says when it may again.',
  ],
  too_many_requests: [
    429,
    'The assistant made as many requests as its grant may in a minute; Retry-After says when it may again.',
  ],
  headers_too_large: [431, 'The request line and headers are too large.'],
  // 5xx: ours, never the client's fault; `detail` says when to try again
  internal_error: [500, 'Something went wrong on our side; the request id identifies it in the logs.'],
  not_ready: [503, 'The database is not reachable.'],
  shutting_down: [503, 'The server is shutting down; retry on another.'],
  media_busy: [503, 'The image workers are busy; Retry-After says when to try again.'],
  media_tool_unavailable: [
    503,
    'A public copy cannot be made now (ffmpeg is missing); only the owner can fetch the file.',
  ],
  file_unavailable: [503, "The medium's file is not available right now."],
} as const satisfies Record<string, readonly [number, string]>;

export type ProblemCode = keyof typeof PROBLEMS;

export const statusOf = (code: ProblemCode): number => PROBLEMS[code][0];

export function isProblemCode(code: unknown): code is ProblemCode {
  return typeof code === 'string' && Object.hasOwn(PROBLEMS, code);
}
