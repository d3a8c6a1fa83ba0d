"""Bytes to text: every encoding a screenplay arrives in, and refusal of binary data."""

from __future__ import annotations

import codecs
import os
from pathlib import Path

import pytest

from kgbuild.errors import InputError
from kgbuild.model import ElementKind
from kgbuild.readers import read_screenplay
from kgbuild.readers.decode import decode_text

ENGLISH = (
    "INT. CAFÉ DU MONDE – NIGHT\n"
    "\n"
    "René sips his café crème by the window. Rain runs down the glass.\n"
    "\n"
    "                    MARIE\n"
    "          “It’s late,” isn’t it? Don’t go — not yet…\n"
    "\n"
    "                    RENÉ\n"
    "          Naïve as ever.\n"
)

# A realistic scene (~1.3 KB in GB18030): short Chinese texts are easily taken for Korean.
CHINESE = (
    "1、老街茶馆，日，内\n"
    "△ 清晨，雨刚停。茶馆的伙计把一张张竹椅搬到门口，街上的石板路泛着水光。\n"
    "王掌柜：（擦着柜台）今天怕是没什么客人了。\n"
    "伙计：掌柜的，东头的李先生说午后要来喝茶，还要带两位朋友。\n"
    "王掌柜：那就把后院的雅座收拾出来，再把去年的龙井拿出来。\n"
    "△ 伙计应了一声，跑进后院。门口的风铃叮当作响，一个穿灰色长衫的中年人走了进来。\n"
    "李先生：王掌柜，好久不见，生意还好吧？\n"
    "王掌柜：托您的福，凑合着过日子。您请坐，茶马上就来。\n"
    "李先生：（坐下，把伞靠在桌边）听说码头那边又出事了，昨天夜里有人落了水。\n"
    "王掌柜：可不是嘛，巡捕房的人一早就来问过话，说是个外地来的账房先生。\n"
    "伙计：（端茶上来）掌柜的，我昨天傍晚还看见他在这儿喝过茶，一个人坐在角落里。\n"
    "李先生：哦？他跟谁说过话没有？\n"
    "伙计：好像没有，就一直盯着窗外看，走的时候连茶钱都多给了两个铜板。\n"
    "△ 王掌柜和李先生对视了一眼，谁也没有再说话。窗外又下起了小雨。\n"
    "切换。\n"
    "2、码头，夜，外\n"
    "△ 江面上雾气很重，几盏马灯在风里摇晃。巡捕老赵蹲在岸边，用木棍拨弄着水里的一顶礼帽。\n"
    "老赵：（自言自语）帽子还在，人去哪儿了？\n"
    "△ 远处传来一声汽笛，老赵站起身，朝着茶馆的方向望去。\n"
    "老赵：明天再去茶馆问问。\n"
    "淡出。\n"
)


def _cases() -> dict[str, tuple[bytes, str, str]]:
    """name -> (bytes, expected text, expected encoding)."""
    return {
        "utf-8": (ENGLISH.encode("utf-8"), ENGLISH, "utf-8"),
        "utf-8 BOM": (codecs.BOM_UTF8 + ENGLISH.encode("utf-8"), ENGLISH, "utf-8-sig"),
        "utf-16 LE BOM": (codecs.BOM_UTF16_LE + ENGLISH.encode("utf-16-le"), ENGLISH, "utf-16"),
        "utf-16 BE BOM": (codecs.BOM_UTF16_BE + ENGLISH.encode("utf-16-be"), ENGLISH, "utf-16"),
        "utf-16 LE": (ENGLISH.encode("utf-16-le"), ENGLISH, "utf-16-le"),
        "utf-16 BE": (ENGLISH.encode("utf-16-be"), ENGLISH, "utf-16-be"),
        "cp1252": (ENGLISH.encode("cp1252"), ENGLISH, "cp1252"),
        "cp1252 CRLF": (ENGLISH.replace("\n", "\r\n").encode("cp1252"), ENGLISH, "cp1252"),
        "zh utf-8": (CHINESE.encode("utf-8"), CHINESE, "utf-8"),
        "zh utf-8 BOM": (codecs.BOM_UTF8 + CHINESE.encode("utf-8"), CHINESE, "utf-8-sig"),
        "zh gb18030": (CHINESE.encode("gb18030"), CHINESE, "gb18030"),
        "zh gbk": (CHINESE.encode("gbk"), CHINESE, "gb18030"),
        "zh gb18030 CRLF": (CHINESE.replace("\n", "\r\n").encode("gb18030"), CHINESE, "gb18030"),
        "zh utf-16 LE BOM": (codecs.BOM_UTF16_LE + CHINESE.encode("utf-16-le"), CHINESE, "utf-16"),
        "zh utf-16 BE BOM": (codecs.BOM_UTF16_BE + CHINESE.encode("utf-16-be"), CHINESE, "utf-16"),
        "zh utf-16 LE": (CHINESE.encode("utf-16-le"), CHINESE, "utf-16-le"),
        "zh utf-16 BE": (CHINESE.encode("utf-16-be"), CHINESE, "utf-16-be"),
    }


@pytest.mark.parametrize("name", sorted(_cases()))
def test_round_trip(tmp_path: Path, name: str) -> None:
    data, expected, encoding = _cases()[name]
    file = tmp_path / "script.txt"
    file.write_bytes(data)
    assert decode_text(file.read_bytes(), str(file)) == (expected, encoding)


@pytest.mark.parametrize(
    ("text", "encoding"),
    [
        ("王掌柜：今天没客人。\n", "gb18030"),  # short GB text: detectors say cp949 (Korean)
        ("张父：你好\n", "gb18030"),
        ("Café\n", "cp1252"),  # short cp1252: detectors say cp1006 (Urdu)
        ("“Hi,” she said.\n", "cp1252"),
        ("一二三四\n", "utf-16-le"),  # UTF-16 with a NUL only in the line end
        ("王掌柜：今天没客人。", "utf-16-be"),  # no ASCII at all, no NUL byte
    ],
)
def test_short_texts(text: str, encoding: str) -> None:
    assert decode_text(text.encode(encoding), "x.txt") == (text, encoding)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4, "binary"),
        (b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 8, "binary"),
        (b"\x00" * 64, "binary"),
        (bytes(range(0x80, 0x100)) * 20, "encoding"),
        (b"hello \x81\x8d\x8f\x90\x9d\xff\xfe world" * 30, "encoding"),
        (b"", "empty"),
    ],
    ids=["png", "elf", "nuls", "high-bytes", "undecodable", "empty"],
)
def test_refused(data: bytes, message: str) -> None:
    with pytest.raises(InputError, match=message):
        decode_text(data, "bad.txt")


def test_random_bytes_are_binary() -> None:
    data = os.urandom(4096) + b"\x00\x00"
    with pytest.raises(InputError, match="binary"):
        decode_text(data, "random.bin")


def test_zero_byte_file_through_read_screenplay(tmp_path: Path) -> None:
    file = tmp_path / "empty.txt"
    file.write_bytes(b"")
    with pytest.raises(InputError, match="empty"):
        read_screenplay(file)


def test_binary_file_through_read_screenplay(tmp_path: Path) -> None:
    file = tmp_path / "image.txt"
    file.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4)
    with pytest.raises(InputError, match="binary"):
        read_screenplay(file)


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "gb18030"])
def test_chinese_screenplay_through_read_screenplay(tmp_path: Path, encoding: str) -> None:
    file = tmp_path / "teahouse.txt"
    file.write_bytes(CHINESE.encode(encoding))
    sp = read_screenplay(file)
    assert sp.language == "zh"
    assert sp.source.encoding == encoding
    assert [(s.number, s.int_ext, s.location, s.time_of_day) for s in sp.scenes] == [
        ("1", "INT", ["老街茶馆"], "日"),
        ("2", "EXT", ["码头"], "夜"),
    ]
    speakers = [e.speaker for s in sp.scenes for e in s.elements if e.kind is ElementKind.CHARACTER]
    assert speakers[:4] == ["王掌柜", "伙计", "王掌柜", "李先生"]
    assert set(speakers) == {"王掌柜", "伙计", "李先生", "老赵"}


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16-le", "cp1252"])
def test_english_screenplay_through_read_screenplay(tmp_path: Path, encoding: str) -> None:
    file = tmp_path / "cafe.txt"
    file.write_bytes(ENGLISH.encode(encoding))
    sp = read_screenplay(file)
    assert sp.source.encoding == encoding
    assert sp.scenes[0].heading == "INT. CAFÉ DU MONDE – NIGHT"
    cues = [e.speaker for s in sp.scenes for e in s.elements if e.kind is ElementKind.CHARACTER]
    assert cues == ["MARIE", "RENÉ"]
    assert any("“It’s late,”" in e.text for s in sp.scenes for e in s.elements)
