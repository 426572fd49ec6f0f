## A3. Files changing during the scan
part 3. || return 0
# Truncated, grown, rewritten in place while being read or between the
# passes, changed or deleted before the verification reload, moved away and
# back: the fault points of tests/suite/faults.rs, at every read path
# (mapped, chunked, LSH reload), with the rest of the output checked.
covered 3.1 faults.rs scan_under_every_fault_names_the_file_and_keeps_the_rest
# 3.2: the faults truncate to half; here to 0 while the file is being read:
# named, the pair of the two copies written.
mkdir -p s32 && head -c 30M /dev/urandom | base64 > s32/a_big.txt && cp c1/a.txt s32/b1.txt && cp c1/a.txt s32/b2.txt
check 3.2 1 'a_big.txt: (shrank while being read|truncated while mapped|changed while being read)' -- "$during s32/a_big.txt 'truncate -s 0 s32/a_big.txt' \$SF --threads 1 scan -q s32 > o32.csv; rc=\$?; grep -q '^s32/b1.txt,s32/b2.txt,' o32.csv && exit \$rc"
for id in 3.3 3.4; do
  covered $id faults.rs scan_under_every_fault_names_the_file_and_keeps_the_rest
done
# 3.5: the big file unlinked while it is being read: read through the open
# descriptor, exit 0, the pair of the two copies written.
mkdir -p s1 && head -c 30M /dev/urandom | base64 > s1/a_big.txt && cp c1/a.txt s1/b1.txt && cp c1/a.txt s1/b2.txt
check 3.5 0 '' -- "$during s1/a_big.txt 'rm s1/a_big.txt' \$SF --threads 1 scan -q s1 > o35.csv; rc=\$?; test ! -e s1/a_big.txt && grep -q '^s1/b1.txt,s1/b2.txt,' o35.csv && exit \$rc"
for id in 3.6 3.7; do
  covered $id faults.rs scan_under_every_fault_names_the_file_and_keeps_the_rest
done
# 3.8: a directory of 200 files deleted while the big file before it is read:
# each named, the rest complete.
mkdir -p s3/z && head -c 30M /dev/urandom | base64 > s3/a_big.txt && cp c1/a.txt s3/b1.txt && cp c1/a.txt s3/b2.txt \
  && for i in $(seq 1 200); do echo "file $i of the doomed directory" > "s3/z/$i.txt"; done
check 3.8 1 'no such file or directory' -- "$during s3/a_big.txt 'rm -rf s3/z' \$SF --threads 1 scan -q s3 > o38.csv 2> e38; rc=\$?; cat e38 >&2; test \$(grep -c 'no such file' e38) -eq 200 && grep -q '^s3/b1.txt,s3/b2.txt,' o38.csv && exit \$rc"
covered 3.9 faults.rs scan_under_every_fault_names_the_file_and_keeps_the_rest
