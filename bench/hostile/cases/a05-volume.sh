## A5. Volume and content shapes
mkdir -p empty && for i in $(seq 1 300); do : > "empty/$i.txt"; done
check 5.4 0 'shorter than one shingle' -- "\$SF scan empty"
mkdir -p bin5 && head -c 20000 /dev/urandom > bin5/x.bin && printf 'a\0b' >> bin5/x.bin && cp c1/a.txt bin5/
check 5.12 0 'looks binary' -- "\$SF scan -v bin5"
check 5.16 2 'at most 256' -- "\$SF scan -q c1 --k 1000"
if [ "$heavy" = 1 ]; then
  mkdir -p id && for i in $(seq 1 3000); do cp c1/c.txt "id/$i.txt"; done
  MAXRSS_KB=100000 check 5.3 0 '' -- "\$SF --threads 1 scan -q id --list-removable | wc -l | grep -qx 2999"
else
  skip 5.3 "heavy (--heavy)"
fi

