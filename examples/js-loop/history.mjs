// The history the next model request would carry (HIST-1): the messages of the surface events
// in surface order, an assistant message with no content (it only carried usage) left out.
//
// This loop's log only appends to the surface (it never compacts, and a repair appends), so
// its history only grows: each observed reports the messages the command added after the ones
// reported before (`kept`). A loop that rewrites its history would send, from the first
// message that changed, everything after it.

const SURFACE_MESSAGES = {
  "user/message": (data) => data,
  "assistant/message": (data) => data.message,
  "tool/result": (data) => data.message,
};

export class History {
  constructor() {
    this.messages = [];
    this.reported = 0;
  }

  // A reopened loop's history: derived from the durable log again; the driver was sent the
  // first `reported` messages before the crash.
  static reopened(events, reported) {
    const history = new History();
    history.feed(events);
    history.reported = reported;
    return history;
  }

  // Fold committed events into the history.
  feed(events) {
    for (const event of events) {
      const messageOf = SURFACE_MESSAGES[event.type];
      if (messageOf === undefined || event.surfaceOp !== "append") continue;
      const message = messageOf(event.data);
      if (message.role === "assistant" && message.content.length === 0) continue;
      this.messages.push(message);
    }
  }

  // What changed since the last report: `kept` messages stay, `appended` follow.
  change() {
    const kept = this.reported;
    this.reported = this.messages.length;
    return { kept, appended: this.messages.slice(kept) };
  }
}
