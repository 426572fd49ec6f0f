## A7. Bad arguments
part 7. || return 0
check 7.1 2 'at least 1' -- "\$SF scan -q c1 --bands 0"
check 7.2 2 'at most 65536' -- "\$SF scan -q c1 --bands 100000 --rows 100000"
check 7.3 2 'at least 1' -- "\$SF scan -q c1 --k 0"
check 7.4 2 'must be in \(0, 1\]' -- "\$SF scan -q c1 -t 1.5"
check 7.4b 2 'must be in \(0, 1\]' -- "\$SF scan -q c1 -t NaN"
check 7.5 2 "unexpected argument '-1'" -- "\$SF scan -q c1 -t -1"
# 7.6: a threshold of 1e-300 alone is out of reach of the recall asked
# for; with bands and rows given it is taken and every pair reported.
check 7.6 0 'out of reach' -- "\$SF scan -q c1 -t 1e-300; test \$? = 2 || exit 9; test \$(\$SF scan -q c1 -t 1e-300 -b 20 -r 5 2>/dev/null | wc -l) -eq 4"
check 7.7 2 '' -- "\$SF scan -q c1 --threads 100000"
check 7.8 2 'No such file or directory' -- "\$SF scan -q /nonexistent"
check 7.9 0 '' -- "test \$(\$SF scan -q c1 c1 ./c1/ | wc -l) -eq 4"
check 7.10 0 '' -- "diff <(\$SF scan -q c7) <(\$SF scan -q c7 c7/sub) && diff <(\$SF scan -q c7) <(\$SF scan -q c7/sub c7)"
# 7.11: each bad value refused with exit 2 and an error line, none of
# them creating the index --db names.
check 7.11 2 '' -- "for a in '--min-similarity NaN' '--max-similarity 2' '--min-similarity 0.9 --max-similarity 0.5' '--limit 0' '--seed 18446744073709551616' '--min-size 10X' '--min-size 10K --max-size 1K' '--exclude [' '--stopwords /nonexistent' '--db x711.db --method exact' '--k 5 --k 6'; do \$SF scan -q c1 \$a > o711 2> e711; test \$? = 2 && grep -q 'error:' e711 && test ! -s o711 || exit 9; done; test ! -e x711.db && exit 2"

check 7.12 0 'at most 256' -- "\$SF scan -q c1 --k 18446744073709551615; test \$? = 2 || exit 9; \$SF scan -q c1 --verify-memory 0 >/dev/null 2>&1 && \$SF scan -q c1 --verify-memory 1K >/dev/null 2>&1"
