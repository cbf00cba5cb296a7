/**
 * Playing cards as DOM elements. Cards are two-character strings on the wire ("Ah", "Td",
 * "2c": rank "23456789TJQKA", suit "cdhs"); a hidden card is drawn as its back.
 */

const SUITS: Record<string, string> = { c: "♣", d: "♦", h: "♥", s: "♠" };
const SUIT_NAMES: Record<string, string> = { c: "clubs", d: "diamonds", h: "hearts", s: "spades" };

/** A face-up card; `down` marks one of the viewer's own face-down cards (only he sees it). */
export function cardElement(card: string, options: { down?: boolean } = {}): HTMLElement {
  const rank = card.slice(0, 1);
  const suit = card.slice(1, 2);
  const element = document.createElement("span");
  element.className = `card face suit-${suit}` + (options.down ? " down" : "");
  element.dataset["card"] = card;
  element.title = `${rank === "T" ? "10" : rank} of ${SUIT_NAMES[suit] ?? suit}` + (options.down ? " (down)" : "");
  const rankElement = document.createElement("span");
  rankElement.className = "rank";
  rankElement.textContent = rank === "T" ? "10" : rank;
  const suitElement = document.createElement("span");
  suitElement.className = "suit";
  suitElement.textContent = SUITS[suit] ?? suit;
  element.append(rankElement, suitElement);
  return element;
}

/** The back of a card another player holds face down. */
export function cardBack(): HTMLElement {
  const element = document.createElement("span");
  element.className = "card back";
  element.title = "face down";
  return element;
}

/**
 * A seat's cards in the order they were dealt in Seven-Card Stud: two down, the up cards
 * (third to sixth street), then the last card down. `down` are the viewer's own down cards
 * (empty for other players, who show `downCount` backs instead).
 */
export function dealtOrder(down: string[], downCount: number, up: string[]): HTMLElement[] {
  const hidden = (index: number): HTMLElement => {
    const card = down[index];
    return card === undefined ? cardBack() : cardElement(card, { down: true });
  };
  const total = Math.max(down.length, downCount);
  const elements: HTMLElement[] = [];
  for (let i = 0; i < Math.min(2, total); i++) elements.push(hidden(i));
  for (const card of up) elements.push(cardElement(card));
  for (let i = 2; i < total; i++) elements.push(hidden(i));
  return elements;
}
