"""The ledger's postings: balanced, never overdrawn, once per key — also under concurrency."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from lobby_api.db import Database
from lobby_api.wallet.ledger import (
    ISSUER,
    InsufficientFunds,
    LedgerError,
    escrow_account,
    post,
    wallet_account,
)
from tests.lobby_api.support import assert_ledger_consistent, rows, scalar


async def _fund(db: Database, account: str, amount: int) -> None:
    async with db.write() as session:
        await post(
            session, f"fund:{uuid.uuid4().hex}", "test", [(ISSUER, -amount), (account, amount)]
        )


async def _balance(db: Database, account: str) -> int:
    return int(await scalar(db, "SELECT balance FROM ledger_accounts WHERE id = :a", a=account))


async def test_a_posting_moves_money_once_per_key(db: Database) -> None:
    wallet, escrow = wallet_account(uuid.uuid4().hex), escrow_account(uuid.uuid4().hex[:12])
    await _fund(db, wallet, 100)
    key = f"buyin:{uuid.uuid4().hex}"
    async with db.write() as session:
        first = await post(session, key, "buy_in", [(wallet, -60), (escrow, 60)], reference="r")
    async with db.write() as session:
        again = await post(session, key, "buy_in", [(wallet, -60), (escrow, 60)])
    assert first.created and not again.created
    assert again.transaction.id == first.transaction.id
    assert first.balances == {wallet: 40, escrow: 60}
    assert (await _balance(db, wallet), await _balance(db, escrow)) == (40, 60)
    entries = await rows(
        db,
        "SELECT account_id, amount, balance_after, reference FROM ledger_entries "
        "WHERE transaction_id = :t ORDER BY account_id",
        t=first.transaction.id,
    )
    assert [tuple(e) for e in entries] == [(escrow, 60, 60, "r"), (wallet, -60, 40, "r")]
    await assert_ledger_consistent(db)


async def test_a_posting_made_before_is_answered_even_where_it_could_not_be_paid_now(
    db: Database,
) -> None:
    """A cash-out posted once, then again (a retry) after the escrow it drew on was emptied:
    the first transaction, not a refusal, and nothing moves."""
    wallet, escrow = wallet_account(uuid.uuid4().hex), escrow_account(uuid.uuid4().hex[:12])
    await _fund(db, escrow, 30)
    key = f"cashout:{uuid.uuid4().hex}"
    async with db.write() as session:
        first = await post(session, key, "cash_out", [(escrow, -30), (wallet, 30)])
    async with db.write() as session:
        again = await post(session, key, "cash_out", [(escrow, -30), (wallet, 30)])
    assert first.created and not again.created
    assert again.transaction.id == first.transaction.id
    assert (await _balance(db, wallet), await _balance(db, escrow)) == (30, 0)
    await assert_ledger_consistent(db)


async def test_an_overdraft_is_refused_and_writes_nothing(db: Database) -> None:
    wallet, escrow = wallet_account(uuid.uuid4().hex), escrow_account(uuid.uuid4().hex[:12])
    await _fund(db, wallet, 50)
    key = f"buyin:{uuid.uuid4().hex}"
    with pytest.raises(InsufficientFunds) as refused:
        async with db.write() as session:
            await post(session, key, "buy_in", [(wallet, -51), (escrow, 51)])
    assert (refused.value.account, refused.value.balance, refused.value.amount) == (wallet, 50, -51)
    assert (
        await scalar(
            db, "SELECT count(*) FROM ledger_transactions WHERE idempotency_key = :k", k=key
        )
        == 0
    )
    assert await scalar(db, "SELECT count(*) FROM ledger_accounts WHERE id = :a", a=escrow) == 0
    assert await _balance(db, wallet) == 50


async def test_malformed_postings_are_bugs(db: Database) -> None:
    wallet = wallet_account(uuid.uuid4().hex)
    for movements in (
        [(wallet, -5), (ISSUER, 4)],
        [(wallet, 5)],
        [(wallet, 0), (ISSUER, 0)],
        [(wallet, 5), (wallet, -5)],
        [("mystery:x", 5), (ISSUER, -5)],
    ):
        with pytest.raises(LedgerError):
            async with db.write() as session:
                await post(session, f"k:{uuid.uuid4().hex}", "test", movements)


async def test_the_issuer_alone_goes_below_zero(db: Database) -> None:
    before = await scalar(db, "SELECT balance FROM ledger_accounts WHERE id = :i", i=ISSUER)
    await _fund(db, wallet_account(uuid.uuid4().hex), 7)
    after = await _balance(db, ISSUER)
    assert after == (before or 0) - 7 and after < 0
    await assert_ledger_consistent(db)


@pytest.mark.many_connections
async def test_concurrent_postings_from_one_wallet_never_overdraw_it(db: Database) -> None:
    wallet = wallet_account(uuid.uuid4().hex)
    await _fund(db, wallet, 1000)

    async def buy_in(n: int) -> bool:
        try:
            async with db.write() as session:
                await post(
                    session,
                    f"buyin:{uuid.uuid4().hex}",
                    "buy_in",
                    [(wallet, -100), (escrow_account(f"t{n}-{uuid.uuid4().hex[:6]}"), 100)],
                )
        except InsufficientFunds:
            return False
        return True

    results = await asyncio.gather(*(buy_in(n) for n in range(50)))
    assert sum(results) == 10
    assert await _balance(db, wallet) == 0
    await assert_ledger_consistent(db)


async def test_one_key_posted_ten_times_at_once_moves_money_once(db: Database) -> None:
    wallet, escrow = wallet_account(uuid.uuid4().hex), escrow_account(uuid.uuid4().hex[:12])
    await _fund(db, wallet, 500)
    key = f"buyin:{uuid.uuid4().hex}"

    async def attempt() -> str:
        async with db.write() as session:
            posting = await post(session, key, "buy_in", [(wallet, -100), (escrow, 100)])
            return posting.transaction.id

    ids = await asyncio.gather(*(attempt() for _ in range(10)))
    assert len(set(ids)) == 1
    assert (await _balance(db, wallet), await _balance(db, escrow)) == (400, 100)
    await assert_ledger_consistent(db)
