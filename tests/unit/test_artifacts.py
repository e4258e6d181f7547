import io
import tarfile

from gaia2_runner.output.artifacts import extract_output, write_text


def make_tar(members):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, kind, data in members:
            info = tarfile.TarInfo(name)
            if kind == "dir":
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            elif kind == "symlink":
                info.type, info.linkname = tarfile.SYMTYPE, data
                tar.addfile(info)
            else:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_extracts_output_dir_contents(tmp_path):
    archive = make_tar(
        [
            ("output", "dir", None),
            ("output/daemon_status.json", "file", b"{}"),
            ("output/logs", "dir", None),
            ("output/logs/agent.log", "file", b"hi"),
        ]
    )
    res = extract_output(archive, tmp_path / "s1")
    assert (tmp_path / "s1" / "daemon_status.json").read_bytes() == b"{}"
    assert (tmp_path / "s1" / "logs" / "agent.log").read_bytes() == b"hi"
    assert len(res.written) == 2 and res.skipped == []


def test_a_stopped_containers_volume_archive_lands_the_same(tmp_path):
    """Podman's archive of a volume in a stopped container: the top is "", the files are "/x"."""
    archive = make_tar(
        [
            ("", "dir", None),
            ("/daemon_status.json", "file", b"{}"),
            ("/logs", "dir", None),
            ("/logs/agent.log", "file", b"hi"),
            ("/../evil.txt", "file", b"x"),
            ("//etc/evil", "file", b"x"),
        ]
    )
    res = extract_output(archive, tmp_path / "s1")
    assert (tmp_path / "s1" / "daemon_status.json").read_bytes() == b"{}"
    assert (tmp_path / "s1" / "logs" / "agent.log").read_bytes() == b"hi"
    assert not (tmp_path / "evil.txt").exists() and not list((tmp_path / "s1").rglob("evil*"))
    assert len(res.written) == 2 and len(res.skipped) == 2


def test_rejects_path_traversal_and_links(tmp_path):
    archive = make_tar(
        [
            ("output/../../evil.txt", "file", b"x"),
            ("/etc/evil", "file", b"x"),
            ("output/link", "symlink", "/etc/passwd"),
            ("output/ok.txt", "file", b"ok"),
        ]
    )
    dest = tmp_path / "a" / "b"
    res = extract_output(archive, dest)
    assert not (tmp_path / "evil.txt").exists() and not (tmp_path / "a" / "evil.txt").exists()
    assert not (dest / "link").exists()
    assert (dest / "ok.txt").read_bytes() == b"ok"
    assert len(res.skipped) == 3


def test_does_not_write_through_existing_symlink(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "agent.log").symlink_to(outside)
    res = extract_output(make_tar([("output/agent.log", "file", b"overwrite")]), dest)
    assert outside.read_text() == "keep"
    assert res.skipped


def test_not_a_tar(tmp_path):
    res = extract_output(b"garbage", tmp_path)
    assert res.skipped and not res.written


def test_write_text(tmp_path):
    assert write_text(tmp_path / "x", "container.log", "line\n").read_text() == "line\n"
