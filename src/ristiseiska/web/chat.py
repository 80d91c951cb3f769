"""Talking at the table (issue 20): quick phrases, emoji reactions and, where the host allows
it, short free text.

Client → server over the table's WebSocket: ``{"type": "chat", "phrase": ID}`` (an id of
:data:`PHRASES`, listed in ``GET /api/meta`` as ``chat_phrases``) or ``{"type": "chat",
"text": T}`` (only at a private table created with the option ``"chat_text": true``: never at
an open or quick table, where strangers sit — :func:`text_allowed`). Everyone at the
table, players and spectators, receives ``{"type": "chat", "seat": S | null, "name": N,
"phrase": ID}`` (or ``"text": T`` instead of ``"phrase"``); ``name`` is the seat's name, ``""``
for a spectator. Each page shows a phrase in its own language.

Refusals go to the sender only, as ``{"type": "error", "code", "message"}``, and nothing is
broadcast: ``bad-chat`` (neither or both of phrase and text), ``chat-unknown`` (no such
phrase), ``chat-spectator`` (a spectator may only react), ``chat-off`` (free text is not
allowed at this table), ``chat-too-long`` (over :data:`MAX_TEXT` characters), ``chat-bad-text``
(control or invisible characters, or nothing left), ``chat-refused`` (the text looks like it
names a card; the frame also has ``reason``: ``notation``, ``name`` or ``symbol``, and ``found``,
the piece that did) and ``chat-rate`` (more than :data:`RATE_COUNT` messages in
:data:`RATE_WINDOW` seconds from one connection or one seat).

Chat never changes the game, never takes the table's lock and is never stored: it is talk, not
part of the match's record, and a player who reloads the page simply misses what was said.
Bots never chat.
"""

from __future__ import annotations

import re
import time
import unicodedata
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import i18n
from .connections import Conn
from .errors import ActionError
from .live_table import LiveTable
from .security import InputError, clean_text

MAX_TEXT = 120  # characters of free text
RATE_COUNT = 5  # messages …
RATE_WINDOW = 10.0  # … in this many seconds, per connection and per seat


@dataclass(frozen=True)
class Phrase:
    id: str
    kind: str  # "phrase" or "reaction"
    emoji: str = ""  # a reaction's picture (its words are its accessible label)


PHRASES: tuple[Phrase, ...] = (
    Phrase("hello", "phrase"),
    Phrase("good-luck", "phrase"),
    Phrase("wait", "phrase"),
    Phrase("hurry", "phrase"),
    Phrase("oops", "phrase"),
    Phrase("well-played", "phrase"),
    Phrase("thanks", "phrase"),
    Phrase("sorry", "phrase"),
    Phrase("good-game", "phrase"),
    Phrase("rematch", "phrase"),
    Phrase("bye", "phrase"),
    Phrase("r-laugh", "reaction", "😄"),
    Phrase("r-wow", "reaction", "😮"),
    Phrase("r-clap", "reaction", "👏"),
    Phrase("r-sad", "reaction", "😢"),
    Phrase("r-think", "reaction", "🤔"),
    Phrase("r-thumbs", "reaction", "👍"),
    Phrase("r-heart", "reaction", "❤️"),
)
BY_ID: dict[str, Phrase] = {p.id: p for p in PHRASES}


def phrase_text(p: Phrase, lang: str) -> str:
    """What ``p`` says in ``lang`` (a reaction: its emoji)."""
    return p.emoji or i18n.t(f"chat.phrase.{p.id}", lang)


def meta(lang: str) -> list[dict[str, Any]]:
    """``chat_phrases`` of ``GET /api/meta``: every phrase with its text in ``lang`` and in
    every language (``texts``); a reaction also has its words as ``label``."""
    out = []
    for p in PHRASES:
        d: dict[str, Any] = {"id": p.id, "kind": p.kind, "text": phrase_text(p, lang),
                             "texts": {la: phrase_text(p, la) for la in i18n.LANGS}}
        if p.emoji:
            d["label"] = i18n.t(f"chat.phrase.{p.id}", lang)
        out.append(d)
    return out


def option(data: Any) -> dict[str, Any]:
    """The table option ``"chat_text"`` of ``POST /api/tables``: ``true`` lets the players
    write free text (off by default) at a private table. Raises :class:`ActionError` for
    anything else than a boolean or null (``bad-chat-text``), and for free text at an open
    table (``chat-text-private``): strangers never get it."""
    value = data.get("chat_text") if isinstance(data, dict) else None
    if value is None or value is False:
        return {}
    if value is not True:
        raise ActionError("bad-chat-text", "chat_text is true or false")
    if data.get("open") is True:
        raise ActionError("chat-text-private", "free text is only for private tables: an open "
                          "table seats strangers, who talk with the quick phrases")
    return {"chat_text": True}


def text_allowed(config: dict[str, Any]) -> bool:
    """Free text at this table: the host allowed it and the table is private (neither open
    nor a quick game's, which seat strangers; also for tables stored before this rule)."""
    return bool(config.get("chat_text")) and not config.get("open") and not config.get("quick")


# -- cards in a text --------------------------------------------------------------------------
#
# A filter of words can never be complete: free text is therefore allowed only at private tables
# (friends; :func:`text_allowed`), and this filter is a courtesy there, made hard to pass. The
# text is looked at in several forms: as written (NFKC), with look-alike letters of other
# scripts made Latin (Cyrillic С, Greek Ο), folded (lower case, no accents: ä → a), and with
# digits and signs read as letters inside words (h3rtt4 → hertta, r!st! → risti).

_SUIT_SYMBOLS = (set("♣♦♥♠♧♢♡♤☘❤❣♥◆◇⬥⬦⯁❖") | {chr(c) for c in range(0x1F0A0, 0x1F100)}
                 | set("💓💔💕💖💗💘💙💚💛💜💝💞💟🖤🤍🤎🧡🩷🩵🩶🫀💎🔶🔷🔸🔹🍀🃏🎴"))
# letters of other scripts that look like Latin ones (the ones that can spell a card)
_CONFUSABLE = str.maketrans({
    "А": "A", "В": "B", "С": "C", "Е": "E", "Н": "H", "І": "I", "Ј": "J", "К": "K", "М": "M",
    "О": "O", "Р": "P", "Ѕ": "S", "Т": "T", "Х": "X", "У": "Y", "Ԛ": "Q", "а": "a", "с": "c",
    "е": "e", "і": "i", "ј": "j", "к": "k", "м": "m", "о": "o", "р": "p", "ѕ": "s", "т": "t",
    "х": "x", "у": "y", "ԛ": "q", "һ": "h", "ԁ": "d", "п": "n", "г": "r", "в": "b", "н": "h",
    "Α": "A", "Β": "B", "Ε": "E", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Χ": "X", "Υ": "Y", "Ζ": "Z", "α": "a", "ε": "e", "ι": "i", "κ": "k",
    "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "χ": "x", "υ": "u", "ϲ": "c", "ℎ": "h",
    "ß": "ss", "ı": "i", "ſ": "s", "ł": "l", "ø": "o", "đ": "d", "ð": "d", "þ": "p"})
# digits and signs that stand for letters inside a word (never a lone number: that is a rank)
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "6": "g", "7": "t",
                       "8": "b", "9": "g", "@": "a", "$": "s", "!": "i", "€": "e", "|": "l",
                       "+": "t"})
# canonical notation: a suit letter and a rank (the rank first also parses), a joker X1/X2;
# letter ranks count in capitals only ("ha ha" is laughter, "HA" the ace of hearts)
_NOTATION_UPPER = re.compile(r"(?<![A-Za-z0-9])(?:[CDHS](?:10|1[0-3]|[2-9AJQKT])|(?:10|[2-9AJQK])"
                             r"[CDHS]|X[12])(?![A-Za-z0-9])")
_NOTATION_DIGIT = re.compile(r"(?<![a-z0-9])(?:[cdhs](?:10|1[0-3]|[2-9])|(?:10|[2-9])[cdhs]|"
                             r"x[12])(?![a-z0-9])")
# the words below are compared after folding: lower case, ä → a, ö → o
_SUIT_STEMS = ("risti", "riste", "ruutu", "ruudu", "hertt", "herta", "pata", "pada", "pato",
               "sydan", "sydam", "apila", "lapio", "timant", "heart", "club", "spade",
               "diamond", "clover",
               # Swedish (hjärter, klöver, ruter, spader; "spade" above covers spader)
               "hjart", "klov", "ruter",
               # Swedish typos and the Norwegian-looking spelling: hjerter, klöwer, spadr, rutter
               "hjert", "klow", "spadr", "rutter")
_FI_SUITS = ("risti", "ruutu", "ruudu", "hertta", "herta", "hertan", "pata", "pada", "sydan",
             "sydamen", "apila", "lapio", "timantti",
             "hjarter", "klover", "ruter", "spader",  # Swedish compounds: hjärtersju
             "hjartr", "hjerter", "klower", "spadr")  # and their typos: hjärtrsjuan
# rank words by their stems (Finnish cases change the ending: seiska, seiskan, seiskaa)
_RANK_STEMS = ("ass", "kakko", "kolmo", "nelo", "viito", "vito", "kuuto", "kuto", "seisk", "seitsem",
               "seitsik", "kas", "kahdeks", "kahdeksik", "ysi", "ysia", "yhdeks", "kymp",
               "kymmen", "jatk", "sotila", "rouv", "akka", "akan", "kuningat", "kuninga",
               "kunink", "kurko", "kunkku", "daami",
               # Swedish, after a suit in one word: spaderkung, hjärteress, rutertia, klöverdamen
               "ess", "tvaa", "tva", "tre", "fyr", "fem", "sex", "sju", "atta", "nio", "nia",
               "tio", "tia", "knekt", "dam", "kung")
_LONG_STEMS = (*(s for s in _RANK_STEMS if len(s) >= 4 and s not in ("jatk", "akka", "akan")),
               "assa", "kasi", "jatka", "akka")
_NAMED_RANK = (r"(?:kakko|kolmo|nelo|viito|vito|kuuto|kuto|seisk|seitsem|seitsik|kahdeks|yhdeks|kymp|"
               r"kymmen|sotila|rouv|kuningat|kuninga|kunink|kurko|kunkku|daami)\w*|assa|assan|"
               r"assaa|assat|assia|assan|assalla|kasi|kasin|kasia|kasit|kaseja|ysi|ysin|ysia|"
               r"ysit|yseja|jatka|jatkan|jatkaa|jatkat|jatkia|akka|akan|akkaa|akat|akkoja|ace|"
               r"aces|deuces?|jacks?|knaves?|queens?|kings?|twos|threes|fours|fives|sixes|"
               r"sevens|eights|nines|tens|"
               # Swedish (folded): ess, knektar, damer, kungar, sjuor …
               r"ess|essen|esset|knekt\w*|damer\w*|kung|kungen|kungar\w*|tvaor\w*|treor\w*|"
               r"fyror\w*|femmor\w*|sexor\w*|sjuor\w*|attor\w*|nior\w*|tior\w*")
_RANK_WORD = re.compile(
    rf"^(?:{_NAMED_RANK}|kaksi|kaks|kolme|nelja|viisi|viis|kuusi|kuus|seittema\w*|kaheksa\w*|"
    r"yheksa\w*|kymmene|yksitoista|kaksitoista|kolmetoista|"
    r"two|three|four|five|six|seven|eight|nine|ten|1[0-3]|[2-9]|ii|iii|iv|v|vi|vii|viii|ix|x|"
    r"xi|xii|xiii|"
    # Swedish numbers and rank nouns after a suit word: hjärter sju, spader dam, ruter tian
    r"tva|tvaa|tvaan|tre|trea|trean|fyra|fyran|fem|femma|femman|sex|sexa|sexan|sju|sjua|sjuan|"
    r"atta|attan|nio|nia|nian|tio|tia|tian|elva|tolv|tolva|tretton|fjorton|dam|damen)$")
# Swedish shorthand for the suits: hj 7, sp K, ru9, kl dam. "kl" with a number is left alone:
# "vi ses kl 7" is a time ("klockan"), so klöver needs a rank's name or letter after "kl".
_SV_SHORT = re.compile(r"^(?:hj|sp|ru)(?:1[0-4]|[2-9])$")
_NAMED_RANK_WORD = re.compile(rf"^(?:{_NAMED_RANK})$")
_COUNT_WORD = re.compile(r"^(?:[2-8]|kaksi|kaks|kolme|nelja|viisi|viis|kuusi|kuus|molemmat|"
                         r"monta|pari|kaikki|"
                         r"two|three|four|five|six|both|all|many|several|"
                         r"tva|tre|fyra|fem|sex|bada|alla|flera|manga)$")
_COLOUR_WORD = re.compile(r"^(?:red|black|punai\w*|musta\w*|roda?|svarta?)$")
# beside a suit word: "pata k", "Q of hearts"; Swedish "spader D" (dam), "ruter Kn" (knekt)
_LETTER_RANK = re.compile(r"^(?:[ajqktd]|kn)$")
_SQUEEZED_RANK = re.compile(
    r"(?:ace|two|three|four|five|six|seven|eight|nine|ten|jack|knave|queen|king|deuce|"
    r"assa|kakko|kolmo|nelo|viito|vito|kuuto|kuto|seisk|seitsem|kasi|kahdeks|ysi|yhdeks|kymp|"
    r"kymmen|jatka|sotila|rouva|akka|kuninga|kunink|kurko|kunkku|daami|"
    r"ess|knekt|dam|kung|tvaa|trea|fyra|femma|sexa|sjua|sju|atta|nio|nia|tio|tia|1[0-3]|[2-9])")
_SQUEEZED_SUIT = re.compile(r"(?:risti|ruutu|ruudu|hertt?a|pata|pada|sydan|sydam|apila|lapio|"
                            r"timantt|hearts?|clubs?|spades?|diamonds?|clovers?|"
                            r"hjarter|klover|ruter|spader)")
_SQUEEZED = re.compile(rf"^(?:{_SQUEEZED_SUIT.pattern}[a-z]{{0,4}}?{_SQUEEZED_RANK.pattern}|"
                       rf"{_SQUEEZED_RANK.pattern}[a-z]{{0,5}}?{_SQUEEZED_SUIT.pattern})")
_FILLER = {"of", "the", "ja", "and"}
_JOKER_WORD = re.compile(r"^(?:joker\w*)$")  # jokeri, jokers, Swedish jokern


def _strip_marks(text: str) -> str:
    return unicodedata.normalize("NFC", "".join(
        ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch)))


def _fold(text: str) -> str:
    return _strip_marks(unicodedata.normalize("NFKC", text).casefold())


def _suit_word(w: str) -> bool:
    """A suit's name in any case or number: hertta, hertan, herttoja, padat, hearts."""
    return any(w.startswith(st) and len(w) - len(st) <= 4 for st in _SUIT_STEMS)


def _rank_word(w: str) -> bool:
    return bool(_RANK_WORD.match(w))


def _letter_rank(w: str, upper: set[str]) -> bool:
    """A rank's letter (A, J, Q, K, T; Swedish D, Kn); "a" and "d" only in capitals ("have a
    heart" is no card)."""
    return bool(_LETTER_RANK.match(w)) and (w not in ("a", "d") or w in upper)


def card_mention(text: str) -> tuple[str, str] | None:
    """``(reason, piece)`` when ``text`` seems to name a card, else ``None``. Best effort,
    on purpose eager: ``reason`` is ``symbol`` (a suit or playing-card symbol, a heart or
    diamond emoji), ``notation`` (``C7``, ``h10``, ``7H``, ``SQ``, ``D7+``, ``X1``, ``С7`` in
    Cyrillic) or ``name`` (``ristiseiska``, ``herttakuutosen``, ``hertta 7``, ``hertta VII``,
    ``sydän seiska``, ``h3rtt4 s31sk4``, ``heartsseven``, ``kolme ässää``, ``2 kings``,
    ``jokeri``; Swedish ``hjärter sju``, ``spaderkungen``, ``klöver 7``, ``två ess``, ``hj 7``, ``sp K``; Finnish
    case endings, dialect, plurals, spaced-out letters and hyphens are seen through)."""
    for ch in text:
        if ch in _SUIT_SYMBOLS:
            return "symbol", ch
    latin = unicodedata.normalize("NFKC", _strip_marks(unicodedata.normalize("NFKC", text))
                                  .translate(_CONFUSABLE))
    m = _NOTATION_UPPER.search(latin)
    if m:
        return "notation", m.group(0)
    folded = _fold(latin)
    m = _NOTATION_DIGIT.search(folded)
    if m:
        return "notation", m.group(0)
    leet = " ".join(w.translate(_LEET) if re.search(r"[a-z]", w) else w
                    for w in re.findall(r"[a-z0-9@$!€|+]+", folded))
    for form in (folded, leet):
        hit = _names(form, latin)
        if hit is not None:
            return hit
    return None


def _names(folded: str, latin: str) -> tuple[str, str] | None:
    """The word checks of :func:`card_mention` on one folded form of the text."""
    words = re.findall(r"[a-z0-9]+", folded)
    upper = {w.lower() for w in re.findall(r"[A-Za-z0-9]+", latin) if w.isupper()}
    for i, w in enumerate(words):
        if _JOKER_WORD.match(w):
            return "name", w
        # a compound: herttakuutonen, ristiseiskan, pataassa, hertta7
        for suit in _FI_SUITS:
            if w.startswith(suit) and len(w) > len(suit):
                rest = w[len(suit):]
                for r in (rest, rest[1:] if rest.startswith("n") else ""):
                    if r and (r.startswith(_RANK_STEMS) or re.match(r"^(?:1[0-3]|[2-9])$", r)):
                        return "name", w
        # suit then rank, or rank then suit, with "of"/"the" between: hertta 7, seven of
        # hearts, hertta VII, K pata, Q of hearts
        nxt = [x for x in words[i + 1:i + 4] if x not in _FILLER][:1]
        if nxt:
            n = nxt[0]
            if _suit_word(w) and (_rank_word(n) or _letter_rank(n, upper)):
                return "name", f"{w} {n}"
            if (_rank_word(w) or _letter_rank(w, upper)) and _suit_word(n):
                return "name", f"{w} {n}"
        # a count (or a colour) and a rank's name: kolme ässää, 2 kings, both red aces
        if _COUNT_WORD.match(w) or _COLOUR_WORD.match(w):
            after = [x for x in words[i + 1:i + 3] if not _COLOUR_WORD.match(x)][:1]
            if after and _NAMED_RANK_WORD.match(after[0]):
                return "name", f"{w} {after[0]}"
        if _SV_SHORT.match(w):
            return "notation", w
        if w in ("hj", "sp", "ru", "kl") and i + 1 < len(words):
            n = words[i + 1]
            if _letter_rank(n, upper) or _NAMED_RANK_WORD.match(n) or n in ("dam", "damen") or (
                    w != "kl" and _rank_word(n)):
                return "notation", f"{w} {n}"
        # a lone suit letter and a rank: "h 7", "S Q", "7 H"
        if w in ("c", "d", "h", "s") and i + 1 < len(words):
            n = words[i + 1]
            if re.match(r"^(?:1[0-3]|[2-9])$", n) or re.match(r"^[jqk]$", n) or n in upper:
                return "notation", f"{w} {n}"
        if re.match(r"^(?:10|[2-9])$", w) and i + 1 < len(words) and words[i + 1] in (
                "c", "d", "h", "s") and words[i + 1] in upper:
            return "notation", f"{w} {words[i + 1]}"
    # letters spaced out or run together: "r i s t i s e i s k a", "heartsseven"
    keep = [i for i, ch in enumerate(folded) if "a" <= ch <= "z" or "0" <= ch <= "9"]
    squeezed = "".join(folded[i] for i in keep)
    at = {i: k for k, i in enumerate(keep)}  # a letter's place in the squeezed text
    for m in re.finditer(r"(?<![a-z0-9])[a-z0-9]", folded):
        sq = squeezed[at[m.start()]:at[m.start()] + 60]
        for suit in _FI_SUITS:
            if sq.startswith(suit):
                rest = sq[len(suit):]
                if rest.startswith(_LONG_STEMS) or rest[1:].startswith(_LONG_STEMS) \
                        and rest.startswith("n"):
                    return "name", folded[m.start():m.start() + len(suit) + 8].strip()
        hit = _SQUEEZED.match(sq)
        if hit:
            return "name", hit.group(0)
    return None


# -- rates ------------------------------------------------------------------------------------

class Window:
    """At most ``count`` events in any ``seconds``: the times of the last ``count`` only."""

    def __init__(self, count: int = RATE_COUNT, seconds: float = RATE_WINDOW) -> None:
        self.times: deque[float] = deque(maxlen=count)
        self.seconds = seconds

    def full(self, now: float) -> bool:
        t = self.times
        return len(t) == t.maxlen and now - t[0] < self.seconds

    def add(self, now: float) -> None:
        self.times.append(now)


class _TableChat:
    """One table's chat state: a window per seat (a seat's tabs share it) and per spectator
    address. Bounded: seats are at most eight and the table's connections at most 64."""

    def __init__(self) -> None:
        self.windows: dict[Any, Window] = {}

    def window(self, key: Any) -> Window:
        w = self.windows.get(key)
        if w is None:
            if len(self.windows) >= 128:  # forget the quietest (a spectator long gone)
                del self.windows[min(self.windows, key=lambda k: self.windows[k].times[-1]
                                     if self.windows[k].times else 0.0)]
            w = self.windows[key] = Window()
        return w


_tables: weakref.WeakKeyDictionary[LiveTable, _TableChat] = weakref.WeakKeyDictionary()
_conns: weakref.WeakKeyDictionary[Conn, Window] = weakref.WeakKeyDictionary()
clock: Callable[[], float] = time.monotonic


class Refused(ActionError):
    """``chat-refused``: the text seems to name a card (``reason`` and ``found`` say how)."""

    def __init__(self, reason: str, found: str, message: str) -> None:
        super().__init__("chat-refused", message)
        self.reason = reason
        self.found = found


def _refuse(conn: Conn, code: str, message: str, **extra: Any) -> None:
    conn.send({"type": "error", "code": code, "message": message, **extra})


def frame(t: LiveTable, conn: Conn, msg: dict[str, Any]) -> dict[str, Any]:
    """The chat frame ``msg`` from ``conn`` makes, or :class:`ActionError` (a card in the
    text: :class:`Refused`)."""
    has_phrase, has_text = "phrase" in msg, "text" in msg
    if has_phrase == has_text:
        raise ActionError("bad-chat", "a chat message has either a 'phrase' or a 'text'")
    seat = conn.seat
    out: dict[str, Any] = {"type": "chat", "seat": seat,
                           "name": t.seats[seat].name if seat is not None else ""}
    if has_phrase:
        pid = msg["phrase"]
        p = BY_ID.get(pid) if isinstance(pid, str) else None
        if p is None:
            shown = pid[:32] if isinstance(pid, str) else type(pid).__name__
            raise ActionError("chat-unknown", f"there is no phrase {shown!r}; the phrases "
                              "are listed in /api/meta as chat_phrases")
        if seat is None and p.kind != "reaction":
            raise ActionError("chat-spectator", "spectators may send reactions only, not "
                              "phrases or text")
        out["phrase"] = p.id
        return out
    if seat is None:
        raise ActionError("chat-spectator", "spectators may send reactions only, not "
                          "phrases or text")
    if not text_allowed(t.config):
        raise ActionError("chat-off", "free text is not allowed at this table (only private "
                          "tables whose host allows it); use the quick phrases")
    raw = msg["text"]
    if isinstance(raw, str) and len(" ".join(raw.split())) > MAX_TEXT:
        raise ActionError("chat-too-long", f"a message is at most {MAX_TEXT} characters")
    try:
        text = clean_text(raw, MAX_TEXT, "message")
    except InputError as e:
        raise ActionError("chat-bad-text", e.message) from None
    if not text:
        raise ActionError("chat-bad-text", "the message is empty")
    hit = card_mention(text)
    if hit is not None:
        reason, found = hit
        why = {"symbol": "a card symbol", "notation": "card notation",
               "name": "a card's name"}[reason]
        raise Refused(reason, found, f"not sent: it has {why} ({found!r}), and nothing "
                      "about cards may be said at the table")
    out["text"] = text
    return out


def handle(t: LiveTable, conn: Conn, msg: dict[str, Any]) -> None:
    """A chat message from ``conn``: checked, rate-limited, then sent to everyone at the table
    (or refused to the sender alone)."""
    try:
        out = frame(t, conn, msg)
    except ActionError as e:
        extra = {"reason": e.reason, "found": e.found} if isinstance(e, Refused) else {}
        _refuse(conn, e.code, e.message, **extra)
        return
    now = clock()
    mine = _conns.get(conn)
    if mine is None:
        mine = _conns[conn] = Window()
    state = _tables.get(t)
    if state is None:
        state = _tables[t] = _TableChat()
    shared = state.window(("seat", conn.seat) if conn.seat is not None else ("addr", conn.addr))
    if mine.full(now) or shared.full(now):
        _refuse(conn, "chat-rate", f"at most {RATE_COUNT} chat messages in "
                f"{RATE_WINDOW:g} seconds; this one was not sent")
        return
    mine.add(now)
    shared.add(now)
    for c in list(t.conns):
        c.send(out)
