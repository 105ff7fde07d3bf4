// Back / forward through the places a flame graph was zoomed to, like a browser's history: a
// place is the focused node and the visible part of its width.
export interface ZoomPlace { focus: number; v0: number; v1: number }

export class ZoomHistory {
  private places: ZoomPlace[] = [{ focus: 0, v0: 0, v1: 1 }];
  private at = 0;
  /** At most this many places are kept (the oldest go first). */
  static readonly LIMIT = 200;

  get current(): ZoomPlace { return this.places[this.at]; }
  get canBack(): boolean { return this.at > 0; }
  get canForward(): boolean { return this.at < this.places.length - 1; }

  /** Records a new place (drops the forward places); the same place twice is one entry. */
  push(p: ZoomPlace): void {
    const c = this.places[this.at];
    if (c.focus === p.focus && c.v0 === p.v0 && c.v1 === p.v1) return;
    this.places.splice(this.at + 1);
    this.places.push({ ...p });
    if (this.places.length > ZoomHistory.LIMIT) this.places.shift();
    this.at = this.places.length - 1;
  }

  /** Replaces the current place (a wheel gesture still going on). */
  replace(p: ZoomPlace): void { this.places[this.at] = { ...p }; }

  back(): ZoomPlace | null { return this.canBack ? this.places[--this.at] : null; }
  forward(): ZoomPlace | null { return this.canForward ? this.places[++this.at] : null; }

  reset(): void { this.places = [{ focus: 0, v0: 0, v1: 1 }]; this.at = 0; }

  /** Renames every place's focused node (its data grew: nodes moved); a node gone is the root. */
  remap(indexOf: (focus: number) => number): void {
    for (const p of this.places) p.focus = Math.max(0, indexOf(p.focus));
  }
}
