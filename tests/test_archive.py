"""Uploaded bot archives come from strangers: every trick in them is refused,
nothing is left behind, and nothing lands outside the destination."""

import gzip
import io
import os
import random
import stat
import tarfile
import zipfile

import pytest

from arena.archive import (
    CHUNK,
    MIB,
    ArchiveError,
    Limits,
    archive_format,
    pack,
    unpack,
)
from arena.errors import ConfigError

DEFAULT_LIMITS = Limits()

# ---------------------------------------------------------------- building archives


def tar_entry(name, data=b"", *, kind=tarfile.REGTYPE, mode=0o644, link=""):
    info = tarfile.TarInfo(name)
    if "\x00" in name:  # the ustar field would end the name there: a pax header keeps it
        info.pax_headers = {"path": name}
    info.type = kind
    info.mode = mode
    info.linkname = link
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    return info, data


def make_tar(*entries):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for info, data in entries:
            tar.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return buffer.getvalue()


def tar_file(name, data=b"x", mode=0o644):
    return tar_entry(name, data, mode=mode)


def tar_dir(name):
    return tar_entry(name, kind=tarfile.DIRTYPE, mode=0o755)


def tar_link(name, target):
    return tar_entry(name, kind=tarfile.SYMTYPE, link=target, mode=0o777)


def zip_entry(name, data=b"x", mode=stat.S_IFREG | 0o644):
    info = zipfile.ZipInfo(name)
    info.external_attr = mode << 16
    return info, data


def make_zip(*entries, compression=zipfile.ZIP_DEFLATED):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for info, data in entries:
            info.compress_type = compression
            archive.writestr(info, data)
    return buffer.getvalue()


def tree(root):
    """Every path under root with what it is: file contents, 'dir' or '-> target'."""
    found = {}
    for path in sorted(root.rglob("*")):
        name = path.relative_to(root).as_posix()
        if path.is_symlink():
            found[name] = "-> " + os.readlink(path)
        elif path.is_dir():
            found[name] = "dir"
        else:
            found[name] = path.read_bytes()
    return found


def mode(path):
    return stat.S_IMODE(path.lstat().st_mode)


def refused(data, dest, reason, limits=DEFAULT_LIMITS):
    """Unpacking is refused for ``reason`` and leaves no destination behind."""
    with pytest.raises(ArchiveError) as caught:
        unpack(data, dest, limits, label="bot.tar.gz")
    message = str(caught.value)
    assert message.startswith("bot.tar.gz: ")
    assert reason in message
    assert "\n" not in message
    assert not os.path.lexists(dest)
    return message


@pytest.fixture
def dest(tmp_path):
    return tmp_path / "arena" / "bots" / "b1"


@pytest.fixture
def sentinel(tmp_path):
    """Where the attacks aim: it must never appear."""
    (tmp_path / "arena" / "bots").mkdir(parents=True)
    yield tmp_path / "evil"
    assert not os.path.lexists(tmp_path / "evil")
    assert not os.path.lexists(tmp_path / "arena" / "evil")
    assert os.listdir(tmp_path / "arena" / "bots") == []


# ---------------------------------------------------------------- names


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("/tmp/evil", "absolute path"),
        ("../../evil", "leads out of the archive"),
        ("a/../../evil", "leads out of the archive"),
        ("bot/\x1b[2Jevil", "control character"),
        ("bot/ev\x00il", "control character"),
        ("", "empty name"),
        ("x" * 256, "component over 255 bytes"),
        ("a/" * 33 + "x", "deeper than 32"),
        ("abcdefgh/" * 120 + "x", "name over 1024 bytes"),
    ],
)
def test_tar_member_names_that_are_unsafe_are_refused(dest, sentinel, name, reason):
    message = refused(make_tar(tar_file("ok.py"), tar_file(name)), dest, reason)
    assert "member " in message


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("/tmp/evil", "absolute path"),
        ("../../evil", "leads out of the archive"),
        ("a/../../evil", "leads out of the archive"),
        ("C:/evil", "absolute path"),
        ("C:evil", "absolute path"),
        ("..\\..\\evil", "backslash"),
        ("bot\\evil", "backslash"),
    ],
)
def test_zip_member_names_that_are_unsafe_are_refused(dest, sentinel, name, reason):
    refused(make_zip(zip_entry("ok.py"), zip_entry(name)), dest, reason)


def test_the_message_names_the_member_at_fault(dest, sentinel):
    message = refused(make_tar(tar_file("../x")), dest, "leads out")
    assert message == "bot.tar.gz: member '../x': leads out of the archive"


# ---------------------------------------------------------------- links


@pytest.mark.parametrize(
    "entries",
    [
        pytest.param([tar_link("etc", "/etc")], id="absolute target"),
        pytest.param([tar_dir("a"), tar_link("a/etc", "../../etc")], id="relative target out"),
        pytest.param([tar_link("up", "a/../..")], id="dots after a name"),
        pytest.param(
            [tar_link("a", "b"), tar_link("b", "c"), tar_link("c", "..")], id="chain ends outside"
        ),
        pytest.param(
            [tar_dir("d"), tar_link("d/s", ".."), tar_link("d/t", "s/../..")],
            id="dots after a link",
        ),
    ],
)
def test_links_leading_out_are_refused(dest, sentinel, entries):
    refused(make_tar(tar_file("ok.py"), *entries), dest, "leads out of the archive")


def test_a_link_cycle_is_refused(dest, sentinel):
    data = make_tar(tar_link("a", "b"), tar_link("b", "a/x"))
    refused(data, dest, "too many levels of symbolic links")


def test_a_file_written_through_a_link_is_refused(dest, sentinel):
    data = make_tar(tar_dir("bot"), tar_link("bot/link", ".."), tar_file("bot/link/evil"))
    refused(data, dest, "lies under the symbolic link 'bot/link'")


def test_a_link_out_then_a_file_through_it_is_refused(dest, sentinel):
    data = make_tar(tar_link("link", ".."), tar_file("link/evil"))
    refused(data, dest, "bot.tar.gz: member 'link/evil': lies under the symbolic link")


def test_a_zip_link_leading_out_is_refused(dest, sentinel):
    data = make_zip(zip_entry("escape", b"../../evil", mode=stat.S_IFLNK | 0o777))
    refused(data, dest, "leads out of the archive")


def test_a_zip_link_with_a_huge_target_is_refused(dest, sentinel):
    data = make_zip(zip_entry("long", b"a/" * 1000, mode=stat.S_IFLNK | 0o777))
    refused(data, dest, "link target over 1024 bytes")


# ---------------------------------------------------------------- kinds and duplicates


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        (tarfile.LNKTYPE, "hard link"),
        (tarfile.CHRTYPE, "character device"),
        (tarfile.BLKTYPE, "block device"),
        (tarfile.FIFOTYPE, "FIFO"),
    ],
)
def test_special_tar_members_are_refused(dest, sentinel, kind, reason):
    info, _ = tar_entry("special", kind=kind, link="ok.py")
    refused(make_tar(tar_file("ok.py"), (info, b"")), dest, f"member 'special': {reason}")


@pytest.mark.parametrize(
    ("file_type", "reason"),
    [(stat.S_IFCHR, "character device"), (stat.S_IFIFO, "FIFO"), (stat.S_IFSOCK, "socket")],
)
def test_special_zip_members_are_refused(dest, sentinel, file_type, reason):
    refused(make_zip(zip_entry("special", b"", mode=file_type | 0o644)), dest, reason)


@pytest.mark.parametrize(
    "entries",
    [
        pytest.param([tar_file("a.py"), tar_file("./a.py")], id="same file"),
        pytest.param([tar_file("a"), tar_dir("a")], id="dir where a file is"),
        pytest.param([tar_dir("a"), tar_file("a")], id="file where a dir is"),
        pytest.param([tar_file("a"), tar_file("a/b")], id="file under a file"),
        pytest.param([tar_file("a/b"), tar_link("a", "c")], id="link where a dir is"),
    ],
)
def test_a_path_twice_is_refused(dest, sentinel, entries):
    refused(make_tar(*entries), dest, "appears twice")


def test_a_zip_path_twice_is_refused(dest, sentinel):
    with pytest.warns(UserWarning, match="Duplicate name"):
        data = make_zip(zip_entry("a.py", b"1"), zip_entry("a.py", b"2"))
    refused(data, dest, "appears twice")


# ---------------------------------------------------------------- limits and bombs


def test_too_many_files_are_refused(dest, sentinel):
    data = make_tar(*(tar_file(f"f{i}") for i in range(6)))
    refused(data, dest, "more than 5 entries", Limits(files=5))


def test_a_directory_counts_as_an_entry(dest, sentinel):
    data = make_zip(zip_entry("d/"), *(zip_entry(f"d/f{i}") for i in range(4)))
    refused(data, dest, "more than 4 entries", Limits(files=4))


def test_an_archive_over_the_size_limit_is_refused_unread(dest, sentinel):
    refused(b"\x1f\x8b" + b"\x00" * 2000, dest, "over 1,000 bytes", Limits(archive_bytes=1000))


def zeros(size):
    """A large file of zeros, streamed so the test does not hold it in memory."""

    class Zeros(io.RawIOBase):
        def __init__(self):
            self.left = size

        def readinto(self, buffer):
            count = min(len(buffer), self.left)
            buffer[:count] = bytes(count)
            self.left -= count
            return count

    return Zeros()


@pytest.fixture
def counted_writes(monkeypatch):
    """The bytes unpack writes to disk: what the bomb bound is about."""
    written = []
    write = os.write

    def counting_write(fd, data):
        count = write(fd, data)
        written.append(count)
        return count

    monkeypatch.setattr(os, "write", counting_write)
    return written


def test_a_gzip_bomb_is_refused_by_the_ratio(dest, sentinel, counted_writes):
    info = tarfile.TarInfo("bomb.bin")
    info.size = 200 * MIB
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.addfile(info, zeros(info.size))
    data = buffer.getvalue()
    assert len(data) < MIB
    bound = max(16 * MIB, 100 * len(data))
    refused(data, dest, "a decompression bomb?")
    assert bound - CHUNK <= sum(counted_writes) <= bound


def test_a_zip_bomb_is_refused_by_counting_what_is_written(dest, sentinel, counted_writes):
    buffer = io.BytesIO()
    with (
        zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive,
        archive.open("bomb.bin", "w", force_zip64=True) as member,
    ):
        for _ in range(20):
            member.write(bytes(MIB))
    data = buffer.getvalue()
    refused(data, dest, "unpacks to more than 16 MiB: a decompression bomb?")
    assert sum(counted_writes) <= 16 * MIB


def test_a_zip_whose_headers_understate_the_size_is_refused(dest, sentinel):
    data = bytearray(make_zip(zip_entry("big.bin", bytes(MIB))))
    small = (100).to_bytes(4, "little")
    data[22:26] = small
    central = data.index(b"PK\x01\x02")
    data[central + 24 : central + 28] = small
    refused(bytes(data), dest, "damaged")


def test_the_unpacked_limit_holds_below_the_ratio(dest, sentinel):
    data = make_tar(tar_file("a", bytes(600)), tar_file("b", bytes(600)))
    refused(data, dest, "member 'b': unpacks to more than", Limits(unpacked_bytes=1000))


def test_a_pax_header_declaring_a_huge_size_is_refused(dest, sentinel):
    header = tarfile.TarInfo("././@PaxHeader")
    header.type = tarfile.XHDTYPE
    header.size = 300 * MIB
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.addfile(header, zeros(header.size))
    refused(buffer.getvalue(), dest, "a decompression bomb?", Limits(files=10))


# ---------------------------------------------------------------- damage and formats


def test_an_encrypted_zip_member_is_refused(dest, sentinel):
    data = bytearray(make_zip(zip_entry("secret.py", b"x" * 100)))
    data[6] |= 0x1
    central = data.index(b"PK\x01\x02")
    data[central + 8] |= 0x1
    refused(bytes(data), dest, "member 'secret.py': encrypted")


@pytest.mark.parametrize("data", [b"", b"hello", b"BZh91AY&SY", b"\x7fELF\x02\x01\x01"])
def test_what_is_not_an_archive_is_refused(dest, sentinel, data):
    refused(data, dest, "not a tar.gz or zip archive")


def test_archive_format_tells_by_magic():
    assert archive_format(make_tar(tar_file("a"))) == "tar.gz"
    assert archive_format(make_zip(zip_entry("a"))) == "zip"
    assert archive_format(make_zip()) == "zip"
    with pytest.raises(ArchiveError, match=r"not a tar\.gz or zip archive"):
        archive_format(b"PK\x07\x08")


@pytest.mark.parametrize("keep", [0.3, 0.6, 0.9])
def test_a_truncated_tar_gz_is_refused(dest, sentinel, keep):
    data = make_tar(*(tar_file(f"f{i}.py", os.urandom(3000)) for i in range(5)))
    refused(data[: int(len(data) * keep)], dest, "damaged")


def test_damaged_archives_never_raise_anything_but_archive_errors(tmp_path):
    chance = random.Random(7)
    good = [
        make_tar(tar_dir("d"), tar_file("d/a.py", os.urandom(2000)), tar_link("l", "d/a.py")),
        make_zip(zip_entry("d/a.py", os.urandom(2000)), zip_entry("d/b.py", bytes(3000))),
    ]
    for case in range(300):
        data = bytearray(good[case % 2])
        for _ in range(chance.randrange(1, 4)):
            data[chance.randrange(len(data))] = chance.randrange(256)
        dest = tmp_path / str(case)
        try:
            unpack(bytes(data[: chance.randrange(len(data) // 2, len(data) + 1)]), dest)
        except ArchiveError:
            assert not os.path.lexists(dest)


def test_a_gzip_of_garbage_is_refused(dest, sentinel):
    refused(gzip.compress(os.urandom(5000)), dest, "damaged")


def test_a_truncated_zip_is_refused(dest, sentinel):
    data = make_zip(zip_entry("a.py", os.urandom(5000)))
    refused(data[: len(data) // 2], dest, "damaged")


def test_an_existing_destination_is_refused_and_kept(tmp_path):
    (tmp_path / "b1").mkdir()
    (tmp_path / "b1" / "keep").write_text("mine")
    with pytest.raises(ArchiveError, match="already exists"):
        unpack(make_tar(tar_file("a")), tmp_path / "b1")
    assert (tmp_path / "b1" / "keep").read_text() == "mine"


def test_archive_errors_are_config_errors():
    assert issubclass(ArchiveError, ConfigError)


# ---------------------------------------------------------------- good archives


def test_a_good_tar_gz_unpacks_with_its_links(tmp_path):
    data = make_tar(
        tar_dir("./"),
        tar_file("./main.py", b"print('hi')\n", mode=0o755),
        tar_dir("./lib"),
        tar_file("./lib/util.py", b"X = 1\n"),
        tar_file("./lib/deep/er/data.txt", b"deep"),
        tar_link("./lib/deep/data", "er/data.txt"),
        tar_link("./util.py", "lib/util.py"),
        tar_link("./lib/top", ".."),
        tar_file("./inner.tar.gz", make_tar(tar_file("../../evil"))),
    )
    result = unpack(data, tmp_path / "b1")
    assert result.root == tmp_path / "b1"
    assert result.files == 4
    assert result.bytes == 12 + 6 + 4 + len(make_tar(tar_file("../../evil")))
    found = tree(result.root)
    assert found["main.py"] == b"print('hi')\n"
    assert found["lib/deep/er/data.txt"] == b"deep"
    assert found["lib/deep/data"] == "-> er/data.txt"
    assert found["util.py"] == "-> lib/util.py"
    assert found["lib/top"] == "-> .."
    assert (result.root / "util.py").read_bytes() == b"X = 1\n"
    assert (result.root / "lib" / "deep" / "data").read_bytes() == b"deep"
    assert found["inner.tar.gz"].startswith(b"\x1f\x8b")
    assert mode(result.root) == mode(result.root / "lib") == mode(result.root / "lib/deep") == 0o755


def test_a_good_zip_unpacks_with_its_links(tmp_path):
    data = make_zip(
        zip_entry("src/"),
        zip_entry("src/bot.py", b"import x\n", mode=stat.S_IFREG | 0o755),
        zip_entry("src/pkg/x.py", b"Y = 2\n"),
        zip_entry("src/x.py", b"pkg/x.py", mode=stat.S_IFLNK | 0o777),
        zip_entry("README", b"from windows", mode=0),
    )
    result = unpack(data, tmp_path / "b1")
    assert result.root == tmp_path / "b1"
    assert (result.files, result.bytes) == (3, 9 + 6 + 12)
    assert tree(result.root) == {
        "README": b"from windows",
        "src": "dir",
        "src/bot.py": b"import x\n",
        "src/pkg": "dir",
        "src/pkg/x.py": b"Y = 2\n",
        "src/x.py": "-> pkg/x.py",
    }
    assert mode(result.root / "src" / "bot.py") == 0o755
    assert mode(result.root / "README") == 0o644


def test_a_single_top_level_directory_becomes_the_root(tmp_path):
    data = make_tar(tar_dir("mybot"), tar_file("mybot/main.py", b"1"), tar_file("mybot/a/b.py"))
    assert unpack(data, tmp_path / "t").root == tmp_path / "t" / "mybot"
    zipped = make_zip(zip_entry("mybot/main.py"), zip_entry("mybot/lib/x.py"))
    assert unpack(zipped, tmp_path / "z").root == tmp_path / "z" / "mybot"


@pytest.mark.parametrize(
    "entries",
    [
        pytest.param([tar_dir("mybot"), tar_file("README")], id="a file beside it"),
        pytest.param([tar_file("main.py")], id="a single file"),
        pytest.param([tar_dir("real"), tar_link("mybot", "real")], id="a link beside it"),
    ],
)
def test_the_root_stays_when_the_top_level_holds_more(tmp_path, entries):
    assert unpack(make_tar(*entries), tmp_path / "b").root == tmp_path / "b"


def test_setuid_setgid_and_sticky_bits_are_stripped(tmp_path):
    data = make_tar(
        tar_file("suid", mode=0o4755),
        tar_file("sgid", mode=0o2711),
        tar_file("sticky", mode=0o1644),
        tar_entry("dir", kind=tarfile.DIRTYPE, mode=0o7777),
        tar_file("world", mode=0o666),
    )
    root = unpack(data, tmp_path / "b").root
    assert mode(root / "suid") == mode(root / "sgid") == 0o755
    assert mode(root / "sticky") == mode(root / "world") == 0o644
    assert mode(root / "dir") == 0o755


def test_an_executable_bit_is_kept(tmp_path):
    data = make_tar(tar_file("run.sh", mode=0o744), tar_file("other", mode=0o640))
    root = unpack(data, tmp_path / "b").root
    assert mode(root / "run.sh") == 0o755
    assert mode(root / "other") == 0o644


def test_an_explicit_directory_after_its_contents_is_fine(tmp_path):
    data = make_tar(tar_file("a/b.py", b"1"), tar_dir("a"), tar_file("c"))
    assert tree(unpack(data, tmp_path / "b").root) == {"a": "dir", "a/b.py": b"1", "c": b"x"}


# ---------------------------------------------------------------- pack


@pytest.fixture
def bot_dir(tmp_path):
    bot = tmp_path / "mybot"
    (bot / "lib" / "__pycache__").mkdir(parents=True)
    (bot / ".git" / "objects").mkdir(parents=True)
    (bot / "main.py").write_text("print('hi')\n")
    (bot / "run.sh").write_text("#!/bin/sh\n")
    (bot / "run.sh").chmod(0o4755)
    (bot / "lib" / "util.py").write_text("X = 1\n")
    (bot / "lib" / "util.pyc").write_bytes(b"cached")
    (bot / "lib" / "__pycache__" / "util.cpython-311.pyc").write_bytes(b"cached")
    (bot / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (bot / "lib" / "empty").mkdir()
    (bot / "util.py").symlink_to("lib/util.py")
    return bot


def test_pack_is_deterministic(bot_dir):
    first = pack(bot_dir)
    os.utime(bot_dir / "main.py", (1, 1))
    assert pack(bot_dir) == first
    assert first[4:8] == bytes(4)


def test_pack_skips_version_control_and_caches(bot_dir):
    with tarfile.open(fileobj=io.BytesIO(pack(bot_dir)), mode="r:gz") as tar:
        members = tar.getmembers()
    assert [m.name for m in members] == [
        "lib",
        "lib/empty",
        "lib/util.py",
        "main.py",
        "run.sh",
        "util.py",
    ]
    owners = {(m.mtime, m.uid, m.gid, m.uname, m.gname) for m in members}
    assert owners == {(0, 0, 0, "", "")}
    assert {m.name: m.mode for m in members if not m.issym()} == {
        "lib": 0o755,
        "lib/empty": 0o755,
        "lib/util.py": 0o644,
        "main.py": 0o644,
        "run.sh": 0o755,
    }


def test_pack_round_trips_through_unpack(bot_dir, tmp_path):
    result = unpack(pack(bot_dir), tmp_path / "b")
    assert result.root == tmp_path / "b"
    assert tree(result.root) == {
        "lib": "dir",
        "lib/empty": "dir",
        "lib/util.py": b"X = 1\n",
        "main.py": b"print('hi')\n",
        "run.sh": b"#!/bin/sh\n",
        "util.py": "-> lib/util.py",
    }
    assert mode(result.root / "run.sh") == 0o755


@pytest.mark.parametrize(
    "target", ["../../outside", "/etc/passwd", "../lib/../../outside", "../../mybot/main.py"]
)
def test_pack_refuses_a_link_leading_out(bot_dir, target):
    (bot_dir / "lib" / "escape").symlink_to(target)
    with pytest.raises(ArchiveError, match=r"'lib/escape': link to .* leads out of the directory"):
        pack(bot_dir)


def test_pack_refuses_special_files(bot_dir):
    os.mkfifo(bot_dir / "pipe")
    with pytest.raises(ArchiveError, match="'pipe': FIFO not allowed"):
        pack(bot_dir)


def test_pack_refuses_more_than_the_limits(bot_dir):
    with pytest.raises(ArchiveError, match="more than 3 entries"):
        pack(bot_dir, Limits(files=3))
    with pytest.raises(ArchiveError, match="the archive is over"):
        pack(bot_dir, Limits(archive_bytes=100))
    with pytest.raises(ArchiveError, match="over"):
        pack(bot_dir, Limits(unpacked_bytes=10))
