/**
 * What overlaps on the table page's felt, measured in the page (pass it to page.evaluate):
 * every part of a seat — its plate, cards, tags, the bet or what it won, the turn's clock —
 * against every part of every other seat; a seat's plate against its own cards and what is
 * under it; whatever sticks out of the viewport sideways or out of the felt; and seats over
 * the pot in the middle. Also where each plate is (plates), and whether the felt is the oval
 * (not the phones' grid). Used by play-table.mjs (a live table) and phone-layout.mjs (full
 * tables).
 */
export function feltOverlaps() {
  const box = (element) => {
    const r = element.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  };
  const drawn = (r) => r.right - r.left > 0 && r.bottom - r.top > 0;
  const hit = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const partsOf = (seat, selector, name) =>
    [...seat.querySelectorAll(selector)].map((element) => ({ name, ...box(element) })).filter(drawn);
  const seats = [...document.querySelectorAll("#seats .seat")].map((seat) => ({
    seat: seat.dataset.seat,
    plate: box(seat.querySelector(".plate")),
    cards: partsOf(seat, ".card", "a card"),
    marks: [
      ...partsOf(seat, ".bet", "the bet"),
      ...partsOf(seat, ".tag", "a tag"),
      ...partsOf(seat, ".won", "the win"),
      ...partsOf(seat, ".clock", "the clock"),
    ],
    bet: seat.querySelector(".bet") !== null,
    clock: seat.querySelector(".clock") !== null,
    won: seat.querySelector(".won") !== null,
  }));
  const found = [];
  const centre = document.querySelector("#center");
  const middle = centre ? box(centre) : null;
  const felt = box(document.querySelector("#felt"));
  const width = document.documentElement.clientWidth;
  for (const a of seats) {
    const parts = [{ name: "the plate", ...a.plate }, ...a.cards, ...a.marks];
    for (const part of parts) {
      if (part.left < -0.5 || part.right > width + 0.5) found.push(`seat ${a.seat} sticks out sideways`);
      if (part.left < felt.left - 0.5 || part.right > felt.right + 0.5 || part.top < felt.top - 0.5 || part.bottom > felt.bottom + 0.5) {
        found.push(`seat ${a.seat}: ${part.name} out of the felt`);
      }
      if (middle && hit(part, middle)) found.push(`seat ${a.seat} over the pot`);
    }
    for (const part of [...a.cards, ...a.marks]) {
      if (hit(a.plate, part)) found.push(`seat ${a.seat}: plate over ${part.name}`);
    }
    for (const b of seats) {
      if (Number(a.seat) >= Number(b.seat)) continue;
      for (const part of parts) {
        for (const other of [{ name: "the plate", ...b.plate }, ...b.cards, ...b.marks]) {
          if (hit(part, other)) found.push(`seat ${a.seat}: ${part.name} over ${other.name} of seat ${b.seat}`);
        }
      }
    }
  }
  return {
    width,
    seats: seats.length,
    bets: seats.filter((s) => s.bet).length,
    clocks: seats.filter((s) => s.clock).length,
    wins: seats.filter((s) => s.won).length,
    cards: seats.reduce((n, s) => n + s.cards.length, 0),
    overlaps: [...new Set(found)],
    scrollWidth: document.documentElement.scrollWidth,
    plates: Object.fromEntries(seats.map((s) => [s.seat, [s.plate.left, s.plate.top].map(Math.round)])),
    oval: getComputedStyle(document.querySelector("#felt")).display !== "grid",
  };
}
