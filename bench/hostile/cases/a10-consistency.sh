## A10. Consistency
check 10.4 0 '' -- "diff <(\$SF --threads 1 scan -q c1 names) <(\$SF --threads 2 scan -q c1 names)"
check 10.5 3 '' -- "mkdir -p lone && text=\$(head -c 3000 c1/a.txt) && echo \"\$text\" > lone/x.txt && \$SF scan -q lone --exit-code"

