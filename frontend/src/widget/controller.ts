/** Open/closed state of the widget, shared by the React tree and window.partchat. */
export type WidgetEvent = "open" | "close" | "message" | "ready";
type Listener = (payload?: unknown) => void;

export interface WidgetSnapshot {
  open: boolean;
  /** The chat was needed once (opened, or sent to): it stays mounted and connected. */
  activated: boolean;
}

export class WidgetController {
  private snap: WidgetSnapshot;
  private readonly subs = new Set<() => void>();
  private readonly listeners = new Map<WidgetEvent, Set<Listener>>();

  constructor(initial: { open: boolean; activated: boolean }) {
    this.snap = { open: initial.open, activated: initial.activated || initial.open };
  }

  subscribe = (fn: () => void) => {
    this.subs.add(fn);
    return () => this.subs.delete(fn);
  };

  getSnapshot = (): WidgetSnapshot => this.snap;

  private set(next: Partial<WidgetSnapshot>) {
    const merged = { ...this.snap, ...next };
    if (merged.open === this.snap.open && merged.activated === this.snap.activated) return;
    const wasOpen = this.snap.open;
    this.snap = merged;
    for (const fn of this.subs) fn();
    if (merged.open !== wasOpen) this.emit(merged.open ? "open" : "close");
  }

  open = () => this.set({ open: true, activated: true });
  close = () => this.set({ open: false });
  toggle = () => (this.snap.open ? this.close() : this.open());
  activate = () => this.set({ activated: true });

  on(event: WidgetEvent, fn: Listener): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
    };
  }

  emit(event: WidgetEvent, payload?: unknown) {
    for (const fn of this.listeners.get(event) ?? []) {
      try {
        fn(payload);
      } catch (err) {
        console.error("partchat: listener failed", err);
      }
    }
  }
}
