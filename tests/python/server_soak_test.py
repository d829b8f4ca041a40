"""A 60-second soak of `trit serve` (issue 20): 8 clients send a mix of
plain, streamed, abandoned, n = 2, JSON-mode and failing requests
(tests/python/soak.py); every reply is what its kind must get, and from the
end of a 10-second warm-up to the end, the server's RSS grows by less than
5% and its open file descriptors do not grow. The model is written at test
time (a real vocabulary and chat template, small random weights: fast, so
the soak sends many requests)."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from soak import KINDS, soak  # noqa: E402
from trit_server import TritServer, make_model, server_test_args  # noqa: E402

ARGS = None


class SoakTest(unittest.TestCase):
    def test_sixty_seconds_of_mixed_requests_leak_nothing(self):
        with tempfile.TemporaryDirectory() as tmp:
            model = make_model(ARGS.make_model, ARGS.vocab, ARGS.template, os.path.join(tmp, "soak.gguf"),
                               ["64", "2", "128", "f32"])
            server = TritServer(ARGS.trit, model, "--parallel", "4", "--ctx", "256", "--threads", "1")
            try:
                server.wait_healthy()
                r = soak(server, seconds=50, clients=8, warmup=10, model="soak")
            finally:
                self.assertEqual(server.stop(), 0)
        print(f"\nsoak: {sum(r['counts'].values())} requests in {r['seconds']:.0f} s {r['counts']}; "
              f"RSS {r['rss_start_kib']} -> {r['rss_end_kib']} KiB ({100 * r['rss_growth']:+.2f}%), "
              f"descriptors {r['fds_start']} -> {r['fds_end']}", file=sys.stderr)
        self.assertEqual(r["failures"][:5], [])
        self.assertEqual(set(r["counts"]), set(KINDS))
        self.assertLess(r["rss_growth"], 0.05)
        self.assertLessEqual(r["fds_end"], r["fds_start"])


if __name__ == "__main__":
    ARGS, rest = server_test_args()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
