#!/usr/bin/env bash
# Writes the evaluation text of docs/QUALITY.md: the Book of Genesis of the
# King James Version (1611, public domain; the Debian package's copyright file
# says "The copyright for the King James Version text of the Bible is
# expired"), from Debian 12's bible-kjv-text 4.38 through the bible-kjv
# program, installed with apt when missing. One paragraph per chapter, verse
# numbers dropped, about 200 KB (~45K tokens for Llama-3-style vocabularies).
# A second argument picks other verses in bible's notation: the calibration
# text of the importance-matrix runs is Exodus ("exo1:1-exo40:38"), so that
# the matrix never sees the text it is judged on.
#
#   bench/quality_text.sh OUT.txt [VERSES]
set -euo pipefail

out=${1:?usage: bench/quality_text.sh OUT.txt [VERSES]}
verses=${2:-gen1:1-gen50:26}
if ! command -v bible >/dev/null 2>&1; then
  echo "quality_text: installing bible-kjv (Debian package) ..." >&2
  if [ "$(id -u)" -eq 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q bible-kjv >/dev/null
  else
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -q bible-kjv >/dev/null
  fi
fi

# bible prints "Genesis N" headers and "  V text" verses, one per line with -l
# wide enough; join each chapter's verses into one paragraph.
bible -l100000 "$verses" | awk '
  /^[1-3]?[A-Za-z ]+ [0-9]+$/ { if (para != "") print para "\n"; print $0 "\n"; para = ""; next }
  /^ +[0-9]+ / { sub(/^ +[0-9]+ /, ""); para = (para == "" ? $0 : para " " $0); next }
  END { if (para != "") print para }
' > "$out"
echo "quality_text: wrote $out ($(wc -c < "$out") bytes, $(wc -w < "$out") words)" >&2
