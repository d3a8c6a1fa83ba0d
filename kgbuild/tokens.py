"""The one token estimate of kgbuild (chunk budgets, LLM cost and budget checks, usage counts),
and the one word count (rates per 1,000 script words).

No tokenizer is downloaded, so the count is a rule of thumb, the same everywhere:

* ASCII text (English, JSON, markup): about 4 characters per token, rounded up;
* every other character (a CJK character, full-width punctuation, an accented letter): 1 token.

Against OpenAI's `o200k_base` tokenizer (gpt-4o and later) the estimate is 0.85-0.94 of the real
count on English screenplays, 0.91 on an exported request's JSON, 1.17 on the English prose of
the extraction prompt and 1.00-1.03 on Chinese screenplays (`cl100k_base`, the gpt-4 tokenizer,
spends about 1.3 tokens a Chinese character).
"""

from __future__ import annotations

import re

#: ASCII characters per token in the estimate.
ASCII_CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """Estimate the number of tokens an OpenAI-style BPE tokenizer makes of `text`.

    Args:
        text: Any text: prose, a prompt, a JSON document.

    Returns:
        ceil(ASCII characters / 4) + the number of other characters; 0 for "".

    Example:
        >>> estimate_tokens("He opens the door."), estimate_tokens("张父喝酒")
        (5, 4)
    """
    ascii_chars = len(text.encode("ascii", "ignore"))
    return -(-ascii_chars // ASCII_CHARS_PER_TOKEN) + (len(text) - ascii_chars)


#: A CJK ideograph, a word of its own in `count_words`.
_IDEOGRAPH = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def count_words(text: str) -> int:
    """Words in `text`: whitespace-separated tokens, with every CJK ideograph a word of its own
    (Chinese has no spaces; STAGE's word counts do the same: 我不是药神's 20,744 words are about
    its 18,126 ideographs plus punctuation).

    Example:
        >>> count_words("He opens the door."), count_words("张父喝酒。 OK")
        (4, 6)
    """
    return len(_IDEOGRAPH.sub(" ", text).split()) + len(_IDEOGRAPH.findall(text))
