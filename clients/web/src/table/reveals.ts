/**
 * The notice a seed rotation calls for. Rotating the seed pair reveals the dealer seed the table
 * dealt from so far (docs/fairness.md §3): from then on anyone can recompute the decks of the hands it
 * dealt — every player's down cards, folded ones included. The lobby lists each rotation with the
 * hands it made public (GET /tables/{id}: seed_reveals); the page shows the player those that
 * opened up hands of his, as soon as the engine's stream says the seed rotated (between hands,
 * so before he plays on) or when he comes back to the table, until he has read them.
 *
 * What he has read is kept per browser tab (sessionStorage), by table and commitment. The
 * notice marks itself on #seed-notice (data-hands: his hands made public, data-commitments).
 */

import type { SeedReveal } from "./api.js";
import { el } from "./render.js";

const READ_KEY = "stud.seed-reveals-read";

function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`the page has no #${id}`);
  return element as T;
}

function readSet(): Set<string> {
  try {
    const stored: unknown = JSON.parse(sessionStorage.getItem(READ_KEY) ?? "[]");
    return new Set(Array.isArray(stored) ? stored.filter((x): x is string => typeof x === "string") : []);
  } catch {
    return new Set();
  }
}

/** Those of `reveals` that made hands of his public and that he has not read yet. */
export function unread(tableId: string, reveals: readonly SeedReveal[], read: ReadonlySet<string>): SeedReveal[] {
  return reveals.filter((r) => r.your_hands.length > 0 && !read.has(`${tableId}:${r.commitment}`));
}

export class SeedNotice {
  private tableId: string | undefined;
  private shown: SeedReveal[] = [];

  constructor() {
    byId("seed-notice-read").addEventListener("click", () => this.markRead());
  }

  /** Follow this table's rotations (none shown until the lobby lists them). */
  start(tableId: string): void {
    this.tableId = tableId;
    this.hide();
  }

  stop(): void {
    this.tableId = undefined;
    this.hide();
  }

  /** The lobby's list of the table's rotations: show those he has not read. */
  update(tableId: string, reveals: readonly SeedReveal[]): void {
    if (tableId !== this.tableId) return;
    const fresh = unread(tableId, reveals, readSet());
    if (fresh.length === 0) {
      this.hide();
      return;
    }
    this.shown = fresh;
    const box = byId("seed-notice");
    box.dataset["hands"] = fresh.flatMap((r) => r.your_hands).join(",");
    box.dataset["commitments"] = fresh.map((r) => r.commitment).join(",");
    byId("seed-notice-list").replaceChildren(
      ...fresh.map((reveal) => {
        const item = el("li", "", reveal.message);
        item.dataset["commitment"] = reveal.commitment;
        item.dataset["hands"] = reveal.hands.join(",");
        item.dataset["yourHands"] = reveal.your_hands.join(",");
        item.title = `Revealed ${new Date(reveal.revealed_at).toLocaleString("en-GB")}`;
        return item;
      }),
    );
    box.hidden = false;
  }

  private markRead(): void {
    if (this.tableId === undefined) return;
    const read = readSet();
    for (const reveal of this.shown) read.add(`${this.tableId}:${reveal.commitment}`);
    sessionStorage.setItem(READ_KEY, JSON.stringify([...read]));
    this.hide();
  }

  private hide(): void {
    this.shown = [];
    const box = byId("seed-notice");
    box.hidden = true;
    delete box.dataset["hands"];
    delete box.dataset["commitments"];
  }
}
