## A2. Special files and symlinks
mkdir -p c2 && cp c1/a.txt c1/b.txt c2/ && mkfifo c2/fifo && ln -s /dev/zero c2/zero.lnk \
  && ln -s /dev/urandom c2/rand.lnk && ln -s .. c2/up && ln -s self c2/self && ln -s nowhere c2/dangling
check 2.1 0 'special|symlink' -- "\$SF --threads 1 scan c2"
check 2.2 '0|1' '' -- "\$SF scan -q -L c2"
check 2.3 2 'not a directory or a regular file' -- "\$SF scan c2/fifo"
mkdir -p outside && echo "secret outside the root" > outside/secret.txt && mkdir -p c10 && cp c1/a.txt c10/ \
  && ln -s ../outside c10/outlink
check 2.4 0 '' -- "\$SF scan -q c10 | grep -v outside >/dev/null; ! \$SF scan -q c10 | grep -q secret"

