// The console's connection to the live feed (GET /api/v1/events): one per tab, read as a stream
// of server-sent events (console/src/model/live.ts parses them). When it breaks it connects
// again after a growing wait, resuming after the last event it had (Last-Event-ID), so nothing
// is missed; a feed that stays silent past its keep-alives is taken as broken.
import { openEventStream } from './api.ts';
import { backoffMs, liveEventOf, newSseParser, parseSse, type FeedState, type LiveEvent } from './model/live.ts';

/** The server comments every 15 s; three of them missed means the connection is gone. */
const SILENCE_MS = 45_000;
/** A connection that lasted this long was a good one: the next break starts the waits afresh. */
const STEADY_MS = 10_000;

export type FeedHandlers = {
  onEvent: (event: LiveEvent) => void;
  onState: (state: FeedState) => void;
};

/** Follows the feed until the returned function is called. */
export function followFeed(handlers: FeedHandlers): () => void {
  const stopped = new AbortController();
  void run(handlers, stopped.signal);
  return () => stopped.abort();
}

async function run(handlers: FeedHandlers, stopped: AbortSignal): Promise<void> {
  let lastEventId: string | null = null;
  let failures = 0;
  handlers.onState('connecting');
  while (!stopped.aborted) {
    const connection = new AbortController();
    const stop = () => connection.abort();
    stopped.addEventListener('abort', stop);
    let silence: ReturnType<typeof setTimeout> | undefined;
    let connectedAt: number | null = null;
    const heard = () => {
      clearTimeout(silence);
      silence = setTimeout(stop, SILENCE_MS);
    };
    try {
      const res = await openEventStream(lastEventId, connection.signal);
      if (res.status === 401) return;
      if (!res.ok || !res.body) throw new Error(`feed answered ${res.status}`);
      connectedAt = Date.now();
      handlers.onState('live');
      heard();
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let parser = newSseParser();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        heard();
        const parsed = parseSse(parser, value);
        parser = parsed.parser;
        for (const sse of parsed.events) {
          if (sse.id) lastEventId = sse.id;
          const event = liveEventOf(sse);
          if (event) handlers.onEvent(event);
        }
      }
    } catch {
      // A network error, an abort or an answer that is not the feed: connect again below.
    } finally {
      clearTimeout(silence);
      stopped.removeEventListener('abort', stop);
    }
    if (stopped.aborted) return;
    // A feed that keeps closing at once is a failure each time, so its waits grow.
    failures = connectedAt !== null && Date.now() - connectedAt >= STEADY_MS ? 1 : failures + 1;
    handlers.onState('down');
    await pause(backoffMs(failures, Math.random()), stopped);
  }
}

function pause(ms: number, stopped: AbortSignal): Promise<void> {
  return new Promise((done) => {
    const timer = setTimeout(finish, ms);
    stopped.addEventListener('abort', finish, { once: true });
    function finish() {
      clearTimeout(timer);
      stopped.removeEventListener('abort', finish);
      done();
    }
  });
}
