## A8. The index
check 8.1 0 '' -- "\$SF index -q c1 --db i8.db"
printf 'not a database' > bad.db
check 8.8 2 'not a usable simfind index|not an SQLite database|not a database' -- "\$SF query -q c1/a.txt --db bad.db"
check 8.14 2 'no index at' -- "\$SF query -q c1/a.txt --db nonexistent.db"
check 8.17 0 '' -- "mkdir -p self && cp c1/a.txt self/ && cd self && \$SF index -q . --db ./self.db && \$SF index -q . --db ./self.db && \$SF query -q a.txt --db self.db | grep -v self.db >/dev/null"

