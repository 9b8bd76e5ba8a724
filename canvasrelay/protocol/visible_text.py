"""Text a guest wrote, as the host reads it before approving: every character that would act or
hide instead of show becomes a visible escape (`\\x1b`, `\\u202e`, `\\u{e0041}`). The web app's
`web/src/guests/visibleText.ts` escapes the same set; both are checked against the same vectors
(tests/vectors/visible_text.json).

Escaped: control characters but newline and tab, format characters (bidi controls, zero-width,
tags), line and paragraph separators, and Unicode's Default_Ignorable_Code_Point (variation
selectors, the combining grapheme joiner, Hangul fillers, Mongolian and Khmer invisibles…).
"""

from __future__ import annotations

import unicodedata

_CATEGORIES = {"Cc", "Cf", "Zl", "Zp"}
_KEPT = {"\n", "\t"}
DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
"""Default_Ignorable_Code_Point, from Unicode 15.1's DerivedCoreProperties.txt."""


def hidden(char: str) -> bool:
    if char in _KEPT:
        return False
    code = ord(char)
    return unicodedata.category(char) in _CATEGORIES or any(low <= code <= high for low, high in DEFAULT_IGNORABLE)


def escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\u{{{code:x}}}"


def visible(text: str) -> tuple[str, int]:
    """The text as shown, and how many characters in it are escapes."""
    escaped = 0
    parts = []
    for char in text:
        if hidden(char):
            escaped += 1
            parts.append(escape(char))
        else:
            parts.append(char)
    return "".join(parts), escaped
