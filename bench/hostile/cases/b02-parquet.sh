## B2. Parquet
check N2.14 0 '' -- "(umask 022; \$SF sign -q c1 --out sig) && test -z \"\$(find sig -name '*.parquet' ! -perm -0644)\""

