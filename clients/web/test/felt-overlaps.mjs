/**
 * What overlaps on the table page's felt, measured in the page (pass it to page.evaluate):
 * every seat plate against every other plate, and against every card and bet chip (of any
 * seat, its own too); bets against other seats' cards; and whatever sticks out of the viewport
 * sideways; and seats over the pot in the middle. Used by play-table.mjs (a live table) and phone-layout.mjs (full tables).
 */
export function feltOverlaps() {
  const box = (element) => {
    const r = element.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  };
  const hit = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const seats = [...document.querySelectorAll("#seats .seat")].map((seat) => ({
    seat: seat.dataset.seat,
    plate: box(seat.querySelector(".plate")),
    cards: [...seat.querySelectorAll(".card")].map(box),
    bet: seat.querySelector(".bet") ? box(seat.querySelector(".bet")) : null,
  }));
  const found = [];
  const centre = document.querySelector("#center");
  const middle = centre ? box(centre) : null;
  const width = document.documentElement.clientWidth;
  for (const a of seats) {
    for (const part of [a.plate, ...a.cards, ...(a.bet ? [a.bet] : [])]) {
      if (part.left < -0.5 || part.right > width + 0.5) found.push(`seat ${a.seat} sticks out sideways`);
    }
    if (middle && [a.plate, ...a.cards, ...(a.bet ? [a.bet] : [])].some((part) => hit(part, middle))) {
      found.push(`seat ${a.seat} over the pot`);
    }
    for (const card of a.cards) if (hit(a.plate, card)) found.push(`seat ${a.seat}: plate over its own card`);
    if (a.bet && hit(a.plate, a.bet)) found.push(`seat ${a.seat}: plate over its own bet`);
    for (const b of seats) {
      if (a === b) continue;
      if (Number(a.seat) < Number(b.seat) && hit(a.plate, b.plate)) found.push(`plates ${a.seat} and ${b.seat}`);
      for (const card of b.cards) if (hit(a.plate, card)) found.push(`plate ${a.seat} over a card of ${b.seat}`);
      if (b.bet && hit(a.plate, b.bet)) found.push(`plate ${a.seat} over the bet of ${b.seat}`);
      if (a.bet) for (const card of b.cards) if (hit(a.bet, card)) found.push(`bet ${a.seat} over a card of ${b.seat}`);
    }
  }
  return {
    width,
    seats: seats.length,
    bets: seats.filter((s) => s.bet).length,
    cards: seats.reduce((n, s) => n + s.cards.length, 0),
    overlaps: [...new Set(found)],
    scrollWidth: document.documentElement.scrollWidth,
  };
}
