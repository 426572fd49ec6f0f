## A7. Bad arguments
check 7.1 2 'at least 1' -- "\$SF scan -q c1 --bands 0"
check 7.2 2 'at most 65536' -- "\$SF scan -q c1 --bands 100000 --rows 100000"
check 7.3 2 'at least 1' -- "\$SF scan -q c1 --k 0"
check 7.4 2 'must be in \(0, 1\]' -- "\$SF scan -q c1 -t 1.5"
check 7.4b 2 'must be in \(0, 1\]' -- "\$SF scan -q c1 -t NaN"
check 7.7 2 '' -- "\$SF scan -q c1 --threads 100000"
check 7.8 2 'No such file or directory' -- "\$SF scan -q /nonexistent"
check 7.9 0 '' -- "test \$(\$SF scan -q c1 c1 ./c1/ | wc -l) -eq 4"
check 7.11 2 '' -- "\$SF scan -q c1 --min-size 10X"

