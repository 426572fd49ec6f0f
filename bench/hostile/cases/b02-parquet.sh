## B2. Parquet
part N2. || return 0
check N2.14 0 '' -- "(umask 022; \$SF sign -q c1 --out sig) && test -z \"\$(find sig -name '*.parquet' ! -perm -0644)\""

