/*
 * Seven-card (and five- or six-card) high-hand evaluator.
 *
 * Cards are the ints of engine_server.game.cards: rank * 4 + suit, ranks
 * 0 (deuce) .. 12 (ace), suits 0..3 = clubs, diamonds, hearts, spades.
 *
 * The result is the strength shared with engine_server.game.evaluation:
 *
 *     category << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5
 *
 * category 0..8 = high card, one pair, two pair, three of a kind, straight,
 * flush, full house, four of a kind, straight flush; r1..r5 are the ranks of
 * the five cards in significance order (sets before kickers, higher before
 * lower).  A straight lists its ranks from the top card down; in the wheel
 * (5-4-3-2-A) the ace plays low, so it is listed last: 3, 2, 1, 0, 12.  Two
 * straights are always decided by r1 alone, so the wheel (r1 = 3) ranks below
 * the six-high straight (r1 = 4).  Larger ints are better hands; equal ints
 * are ties.
 *
 * The method is bit arithmetic on four 13-bit rank masks, one per suit, with
 * no lookup tables: it is small, branch-light and fast enough that the Python
 * call overhead dominates.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>

enum {
    HIGH_CARD = 0,
    ONE_PAIR = 1,
    TWO_PAIR = 2,
    THREE_OF_A_KIND = 3,
    STRAIGHT = 4,
    FLUSH = 5,
    FULL_HOUSE = 6,
    FOUR_OF_A_KIND = 7,
    STRAIGHT_FLUSH = 8,
};

static inline int
top_bit(uint32_t mask)
{
    return 31 - __builtin_clz(mask);
}

/* The top-card rank of the best straight in a rank mask, or -1.  The ace is
 * copied below the deuce so that A-2-3-4-5 is found like any other run. */
static inline int
straight_top(uint32_t ranks)
{
    uint32_t m = (ranks << 1) | ((ranks >> 12) & 1u);
    uint32_t runs = m & (m >> 1) & (m >> 2) & (m >> 3) & (m >> 4);
    if (!runs) {
        return -1;
    }
    /* A run starting at bit j of m (rank j - 1) tops out at rank j + 3. */
    return top_bit(runs) + 3;
}

static inline uint32_t
straight_ranks(int top)
{
    if (top == 3) {
        return 3u << 16 | 2u << 12 | 1u << 8 | 0u << 4 | 12u;
    }
    return (uint32_t)top << 16 | (uint32_t)(top - 1) << 12 | (uint32_t)(top - 2) << 8
           | (uint32_t)(top - 3) << 4 | (uint32_t)(top - 4);
}

/* Append the highest `count` ranks of `mask` to `acc`, one nibble each. */
static inline uint32_t
take_high(uint32_t acc, uint32_t mask, int count)
{
    while (count-- > 0) {
        int r = top_bit(mask);
        mask &= ~(1u << r);
        acc = acc << 4 | (uint32_t)r;
    }
    return acc;
}

/* The strength of the best five cards among cards whose per-suit rank masks
 * are c, d, h, s.  Assumes 5 to 7 distinct cards: with at most seven, a
 * flush leaves too few cards outside its suit for quads or a full house, so
 * a flush can be scored as soon as it is seen. */
static uint32_t
evaluate_masks(uint32_t c, uint32_t d, uint32_t h, uint32_t s)
{
    uint32_t suits[4] = {c, d, h, s};
    for (int i = 0; i < 4; i++) {
        uint32_t m = suits[i];
        if (__builtin_popcount(m) >= 5) {
            int top = straight_top(m);
            if (top >= 0) {
                return (uint32_t)STRAIGHT_FLUSH << 20 | straight_ranks(top);
            }
            while (__builtin_popcount(m) > 5) {
                m &= m - 1; /* drop the lowest rank */
            }
            return (uint32_t)FLUSH << 20 | take_high(0, m, 5);
        }
    }

    uint32_t any = c | d | h | s;
    uint32_t two = (c & d) | (c & h) | (c & s) | (d & h) | (d & s) | (h & s);
    uint32_t three = (c & d & h) | (c & d & s) | (c & h & s) | (d & h & s);
    uint32_t four = c & d & h & s;

    if (four) {
        uint32_t q = (uint32_t)top_bit(four);
        uint32_t acc = (uint32_t)FOUR_OF_A_KIND << 4 | q;
        acc = acc << 4 | q;
        acc = acc << 4 | q;
        acc = acc << 4 | q;
        return take_high(acc, any & ~(1u << q), 1);
    }
    if (three) {
        uint32_t t = (uint32_t)top_bit(three);
        /* A second set of trips counts as the pair. */
        uint32_t pairs = two & ~(1u << t);
        if (pairs) {
            uint32_t p = (uint32_t)top_bit(pairs);
            return (uint32_t)FULL_HOUSE << 20 | t << 16 | t << 12 | t << 8 | p << 4 | p;
        }
    }
    int top = straight_top(any);
    if (top >= 0) {
        return (uint32_t)STRAIGHT << 20 | straight_ranks(top);
    }
    if (three) {
        uint32_t t = (uint32_t)top_bit(three);
        uint32_t acc = (uint32_t)THREE_OF_A_KIND << 12 | t << 8 | t << 4 | t;
        return take_high(acc, any & ~(1u << t), 2);
    }
    if (two) {
        uint32_t p1 = (uint32_t)top_bit(two);
        uint32_t rest = two & ~(1u << p1);
        if (rest) {
            uint32_t p2 = (uint32_t)top_bit(rest);
            uint32_t acc = (uint32_t)TWO_PAIR << 16 | p1 << 12 | p1 << 8 | p2 << 4 | p2;
            return take_high(acc, any & ~(1u << p1) & ~(1u << p2), 1);
        }
        uint32_t acc = (uint32_t)ONE_PAIR << 8 | p1 << 4 | p1;
        return take_high(acc, any & ~(1u << p1), 3);
    }
    return take_high(HIGH_CARD, any, 5);
}

/* Read one card into the suit masks; -1 with an exception set on a bad or
 * repeated card. */
static inline int
add_card(PyObject *obj, uint32_t suits[4])
{
    long card = PyLong_AsLong(obj);
    if (card == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (card < 0 || card > 51) {
        PyErr_Format(PyExc_ValueError, "not a card: %ld", card);
        return -1;
    }
    uint32_t bit = 1u << (card >> 2);
    uint32_t *mask = &suits[card & 3];
    if (*mask & bit) {
        PyErr_Format(PyExc_ValueError, "repeated card: %ld", card);
        return -1;
    }
    *mask |= bit;
    return 0;
}

PyDoc_STRVAR(evaluate7_doc,
             "evaluate7(c0, c1, c2, c3, c4, c5, c6, /)\n--\n\n"
             "Strength of the best five-card high hand among seven distinct cards.\n\n"
             ">>> evaluate7(51, 47, 43, 39, 35, 0, 5)  # As Ks Qs Js Ts 2c 3d\n"
             "9222808\n");

static PyObject *
evaluate7(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7) {
        PyErr_Format(PyExc_TypeError, "evaluate7() takes exactly 7 cards (%zd given)", nargs);
        return NULL;
    }
    uint32_t suits[4] = {0, 0, 0, 0};
    for (Py_ssize_t i = 0; i < 7; i++) {
        if (add_card(args[i], suits) < 0) {
            return NULL;
        }
    }
    return PyLong_FromUnsignedLong(evaluate_masks(suits[0], suits[1], suits[2], suits[3]));
}

PyDoc_STRVAR(evaluate_doc,
             "evaluate(cards, /)\n--\n\n"
             "Strength of the best five-card high hand among 5 to 7 distinct cards.\n\n"
             ">>> evaluate([51, 47, 43, 39, 35])  # As Ks Qs Js Ts\n"
             "9222808\n");

static PyObject *
evaluate(PyObject *Py_UNUSED(module), PyObject *cards)
{
    PyObject *seq = PySequence_Fast(cards, "evaluate() needs a sequence of cards");
    if (seq == NULL) {
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n < 5 || n > 7) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "evaluate() needs 5 to 7 cards (%zd given)", n);
        return NULL;
    }
    PyObject **items = PySequence_Fast_ITEMS(seq);
    uint32_t suits[4] = {0, 0, 0, 0};
    for (Py_ssize_t i = 0; i < n; i++) {
        if (add_card(items[i], suits) < 0) {
            Py_DECREF(seq);
            return NULL;
        }
    }
    Py_DECREF(seq);
    return PyLong_FromUnsignedLong(evaluate_masks(suits[0], suits[1], suits[2], suits[3]));
}

static PyMethodDef evaluator_methods[] = {
    {"evaluate7", (PyCFunction)(void (*)(void))evaluate7, METH_FASTCALL, evaluate7_doc},
    {"evaluate", evaluate, METH_O, evaluate_doc},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(module_doc, "Fast high-hand evaluation for engine_server.game.evaluation.");

static struct PyModuleDef_Slot evaluator_slots[] = {
    {0, NULL},
};

static struct PyModuleDef evaluator_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "engine_server.game._evaluator",
    .m_doc = module_doc,
    .m_size = 0,
    .m_methods = evaluator_methods,
    .m_slots = evaluator_slots,
};

PyMODINIT_FUNC
PyInit__evaluator(void)
{
    return PyModuleDef_Init(&evaluator_module);
}
