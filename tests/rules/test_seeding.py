"""Seeds to decks (docs/seeds.md): the published vectors, recomputed here and
by an independent JavaScript implementation, and the shuffle's fairness."""

import hashlib
import itertools
import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from arena.errors import RulesError
from arena.rules import (
    Deal,
    Game,
    Match,
    Variant,
    card_name,
    commitment,
    match_seed,
    new_seed,
    seeded_deck,
    seeded_first_dealer,
    set_seed,
)
from arena.rules.seeding import below, deck_difference, set_id_of, shuffle, words

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "seeds.md"
DERIVE_JS = ROOT / "tests" / "seeds" / "derive.mjs"
DECKS = ((0, 0), (1, 0), (0, 1))


def section(title: str) -> str:
    """The text of the doc's section under a ``###`` heading."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"### {title}\n")
    end = text.find("\n### ", start + 1)
    return text[start : end if end != -1 else None]


def blocks(title: str) -> list[list[str]]:
    """The lines of each ```text block of a section."""
    return [
        b.strip("\n").splitlines() for b in re.findall(r"```text\n(.*?)```", section(title), re.S)
    ]


def fields(lines: list[str]) -> dict[str, str]:
    out = {}
    for line in lines:
        key, _, value = line.partition(":")
        out[key.strip()] = value.strip()
    return out


def vectors() -> list[dict[str, str]]:
    return [fields(b) for b in blocks("Seeds, sets and decks")]


def draws() -> list[tuple[int, list[int], int]]:
    out = []
    for line in blocks("Draws that skip words")[0]:
        m = re.fullmatch(r"below\((\d+)\), words ([\d ]+) -> (\d+)", line)
        assert m, line
        out.append((int(m[1]), [int(w) for w in m[2].split()], int(m[3])))
    return out


def seed_of(v: dict[str, str]) -> int:
    return int(v["set seed"] if "master seed" in v else v["match seed"])


def first_dealers(v: dict[str, str]) -> dict[int, int]:
    pairs = re.findall(r"(\d+) seats: (\d+)", v["first dealer"])
    return {int(seats): int(seat) for seats, seat in pairs}


def test_the_doc_has_the_promised_vectors():
    vs = vectors()
    masters = [v for v in vs if "master seed" in v]
    singles = [v for v in vs if "match seed" in v]
    assert len(masters) >= 3 and len(singles) >= 1
    assert any(json.loads(v["master seed"]) == "1" for v in masters)  # the default config seed
    assert any(not json.loads(v["master seed"]).isascii() for v in masters)
    for v in vs:
        for d, a in DECKS:
            assert len(v[f"deck {d}/{a}"].split()) == 40 and f"deck {d}/{a} names" in v
        assert set(first_dealers(v)) == {2, 4}
    assert len(draws()) >= 3


@pytest.mark.parametrize("index", range(5))
def test_python_gives_the_vectors_of_the_doc(index):
    v = vectors()[index]
    if "master seed" in v:
        master = json.loads(v["master seed"])
        set_id = json.loads(v["set id"])
        assert commitment(master) == v["commitment"]
        assert set_seed(master, set_id) == int(v["set seed"])
        assert match_seed(master, f"{set_id}/1") == int(v["set seed"])
    else:
        assert match_seed(v["match seed"], "") == int(v["match seed"])
    seed = seed_of(v)
    for seats, dealer in first_dealers(v).items():
        assert seeded_first_dealer(seed, seats) == dealer
    for d, a in DECKS:
        deck = seeded_deck(seed, d, a)
        assert " ".join(map(str, deck)) == v[f"deck {d}/{a}"]
        assert " ".join(card_name(c) for c in deck) == v[f"deck {d}/{a} names"]


def test_the_worked_example_of_one_stream():
    worked = fields(blocks("One deck step by step")[0])
    label = worked["label"]
    assert hashlib.sha256(f"{label}/0".encode()).hexdigest() == worked["block 0"]
    stream = words(label)
    assert [next(stream) for _ in range(8)] == [int(w) for w in worked["block 0 words"].split()]
    first = next(v for v in vectors() if v.get("match seed") == "1")
    assert label == "scopa-arena/deck/v1/1/0/0"
    assert " ".join(map(str, shuffle(40, words(label)))) == first["deck 0/0"]


def test_draws_skip_the_words_at_or_above_the_limit():
    for n, ws, result in draws():
        stream = iter(ws)
        assert below(n, stream) == result
        assert next(stream, None) is None  # every word was read, none more


@pytest.mark.process
def test_an_independent_javascript_implementation_gives_the_same_vectors(tmp_path):
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    requests: list[dict[str, object]] = []
    for v in vectors():
        if "master seed" in v:
            request = {"master": json.loads(v["master seed"]), "set_id": json.loads(v["set id"])}
        else:
            request = {"seed": v["match seed"]}
        requests.append({**request, "decks": [list(x) for x in DECKS]})
    requests += [{"below": n, "words": ws} for n, ws, _ in draws()]
    out = subprocess.run(
        [node, str(DERIVE_JS)],
        input=json.dumps(requests),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    answers = json.loads(out.stdout)
    assert len(answers) == len(requests)
    for v, got in zip(vectors(), answers, strict=False):
        if "master seed" in v:
            assert got["commitment"] == v["commitment"]
            assert got["set_seed"] == v["set seed"]
        assert {int(k): d for k, d in got["first_dealer"].items()} == first_dealers(v)
        for d, a in DECKS:
            assert " ".join(map(str, got["decks"][f"{d}/{a}"])) == v[f"deck {d}/{a}"]
            assert " ".join(got["names"][f"{d}/{a}"]) == v[f"deck {d}/{a} names"]
    for (_, _, result), got in zip(draws(), answers[len(vectors()) :], strict=True):
        assert got["value"] == result


def test_fisher_yates_gives_each_order_of_a_small_deck_once_per_draw_sequence():
    # With uniform draws every sequence (j3, j2, j1), j_i in 0..i, is equally likely;
    # the shuffle maps the 24 sequences onto the 24 orders one to one, so it is unbiased.
    orders = Counter(
        tuple(shuffle(4, iter(seq))) for seq in itertools.product(range(4), range(3), range(2))
    )
    assert len(orders) == 24 and set(orders.values()) == {1}
    assert set(orders) == set(itertools.permutations(range(4)))


def test_each_draw_has_the_same_number_of_words_behind_it():
    for n in range(1, 41):
        limit = 2**32 - 2**32 % n
        assert limit % n == 0 and 2**32 - n < limit <= 2**32  # the largest multiple of n
        stream = iter([limit, limit - 1])
        assert below(n, stream) == (limit - 1) % n  # the word at the limit is skipped


def test_a_card_lands_in_every_position_about_equally_often():
    decks = [seeded_deck(seed, 0) for seed in range(4000)]
    expected = len(decks) / 40
    for card in (0, 6, 17, 39):
        counts = Counter(deck.index(card) for deck in decks)
        chi2 = sum((counts[p] - expected) ** 2 / expected for p in range(40))
        assert chi2 < 100, (card, chi2)  # 39 degrees of freedom: mean 39, sd 9
    dealers = Counter(seeded_first_dealer(seed, 4) for seed in range(4000))
    assert all(900 < dealers[s] < 1100 for s in range(4)), dealers


def test_decks_are_permutations_and_differ_by_deal_attempt_and_seed():
    seen = set()
    for seed, deal, attempt in itertools.product((0, 1, 2**63), range(3), range(2)):
        deck = seeded_deck(seed, deal, attempt)
        assert sorted(deck) == list(range(40))
        seen.add(tuple(deck))
    assert len(seen) == 18


def test_a_match_seed_counts_modulo_2_to_the_64():
    assert seeded_deck(-1, 0) == seeded_deck(2**64 - 1, 0)
    assert seeded_first_dealer(2**64 + 5, 4) == seeded_first_dealer(5, 4)
    assert match_seed("-1", "") == 2**64 - 1
    with pytest.raises(RulesError, match="0 or more"):
        seeded_deck(1, -1)


def test_master_seeds_are_text_and_integers_stand_for_their_digits():
    assert commitment(1) == commitment("1") != commitment("01")
    assert set_seed(7, "a~b#0") == set_seed("7", "a~b#0")
    ids = [f"a~b#{r}" for r in range(200)]
    seeds = [set_seed("x", i) for i in ids]
    assert len(set(seeds)) == 200 and all(0 <= s < 2**63 for s in seeds)
    # the master's length keeps "a/b" + "c" apart from "a" + "b/c"
    assert set_seed("a/b", "c") != set_seed("a", "b/c")
    with pytest.raises(RulesError, match="text or an integer"):
        commitment(1.5)  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="not valid Unicode"):
        commitment("\udcff")  # a byte that was not UTF-8 on the command line


def test_new_seeds_are_fresh_hex():
    a, b = new_seed(), new_seed()
    assert re.fullmatch(r"[0-9a-f]{32}", a) and a != b


def test_a_schedule_id_names_its_set():
    assert set_id_of("greedy~random#3/1") == "greedy~random#3"
    assert set_id_of("a+b~c+d#0/12") == "a+b~c+d#0"
    assert match_seed("s", "sprt#4/0") == match_seed("s", "sprt#4/1") == set_seed("s", "sprt#4")
    for bad in ("greedy~random#3", "/1", "a~b#0/x"):
        with pytest.raises(RulesError, match="not a schedule id"):
            set_id_of(bad)
    with pytest.raises(RulesError, match="is an integer"):
        match_seed("abc", "")


def test_deck_difference_names_the_first_thing_that_differs():
    seed = 12345
    deals = [[seeded_deck(seed, 0, 0), seeded_deck(seed, 0, 1)], [seeded_deck(seed, 1, 0)]]
    dealer = seeded_first_dealer(seed, 2)
    assert deck_difference(seed, 2, dealer, deals) is None
    assert deck_difference(seed, 2, 1 - dealer, deals) == (
        f"first dealer is seat {1 - dealer}, the seed gives seat {dealer}"
    )
    swapped = list(deals[1][0])
    swapped[5], swapped[9] = swapped[9], swapped[5]
    message = deck_difference(seed, 2, dealer, [deals[0], [swapped]])
    assert message == (
        f"deal 1 attempt 0: card 5 of the deck is {card_name(swapped[5])}, "
        f"the seed gives {card_name(deals[1][0][5])}"
    )
    short = deck_difference(seed, 2, dealer, [[deals[0][0][:39]]])
    assert short == "deal 0 attempt 0: the deck has 39 cards, the seed gives 40"
    assert deck_difference(seed + 1, 2, seeded_first_dealer(seed + 1, 2), deals) is not None


def test_a_void_deal_is_dealt_again_from_the_next_attempt():
    scopa = Variant(Game.SCOPA)
    seed = next(s for s in range(10_000) if Deal(scopa, 0, seeded_deck(s, 0, 0)).is_void)
    match = Match(scopa, seed)
    deal = match.start_deal()
    assert match.void_decks[0] == tuple(seeded_deck(seed, 0, 0))
    assert deal.deck == seeded_deck(seed, 0, len(match.void_decks))
    decks = [*match.void_decks, deal.deck]
    assert deck_difference(seed, 2, match.first_dealer, [decks]) is None
    assert deck_difference(seed, 2, match.first_dealer, [decks[1:]]) is not None


def test_a_set_of_shared_decks_takes_the_seed_of_its_round():
    """docs/seeds.md: ``deals#R:PAIRING`` is dealt from the seed of ``deals#R``."""
    from arena.rules.seeding import deck_set_of

    assert set_seed("1", "deals#3:greedy~random") == set_seed("1", "deals#3")
    assert set_seed("1", "deals#3:a+b~c+d") == set_seed("1", "deals#3")
    assert set_seed("1", "deals#3:greedy~random") != set_seed("1", "deals#4:greedy~random")
    assert match_seed("1", "deals#3:greedy~random/1") == set_seed("1", "deals#3")
    # Other set ids keep their own seeds, the ladder's "l:N:A~B" among them.
    for plain in ("greedy~random#3", "sprt#3", "l:2:a~b", "f:a~b#0", "deals#x:a~b"):
        assert deck_set_of(plain) == plain
