/**
 * What an adapter gives the transport (`HttpInput`), the error its body reading fails with (`BodyError`) and
 * what the transport reports (`HttpStats`): apart from the transport, so that the package's entry point can
 * export them without loading it (see index.ts).
 */
import type { AuthRequest } from "./options.js";

/** A request as the transport sees it; adapters build one from theirs. */
export interface HttpInput extends AuthRequest {
  /** Upper-case HTTP method. */
  readonly method: string;
  /** The URL path, without query. */
  readonly path: string;
  /**
   * Reads the body as UTF-8; fails with a `BodyError` past `limit` bytes or when the body breaks off. A
   * promise does, or anything with its `then` (the node:http adapter's calls back from the body's end itself).
   */
  text(limit: number): BodyText;
  /** Runs `listener` if the client goes away before the response is complete. */
  onDisconnect(listener: () => void): void;
  /**
   * Parses a body with the `MessageParser` of the client's connection, which remembers its 2026-era envelope
   * from one request to the next; without it, each body is parsed on its own (`parseMessage`).
   */
  parse?(text: string): unknown;
}

/** What `HttpInput.text` gives: its `then` is called once, with what to do with the text and with a failure. */
export interface BodyText {
  then(onText: (text: string) => void, onError: (error: unknown) => void): unknown;
}

export class BodyError extends Error {
  override name = "BodyError";
  constructor(
    readonly kind: "payloadTooLarge" | "badRequest",
    message: string,
  ) {
    super(message);
  }
}

/** What the transport holds, for tests and monitoring. */
export interface HttpStats {
  sessions: number;
  /** Open SSE streams (GET streams and `subscriptions/listen` streams) and running POST exchanges. */
  streams: number;
  exchanges: number;
}
