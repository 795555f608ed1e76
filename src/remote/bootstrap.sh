# agent-context's bootstrap on the other side of a channel (ssh, docker exec,
# kubectl exec, a host's own): a POSIX sh script given as an argument, so it
# holds no secret. Run as
#   sh -c "$BOOTSTRAP" agent-context MODE RUN_FOLDER PROCESS [ARG...]
# It reads records from stdin, one a line, up to a line ".": the first line
# is "agent-context 1"; every record is a letter, a space and its values,
# printf %b escapes (backslashes and control bytes escaped), two values
# split by a tab:
#   E name<TAB>value  set a variable     D name<TAB>value  set it when unset
#   M folder          make it            F file, then a line: its content
#   L target<TAB>path a symbolic link    R file            remove it
#   C folder          cd there           X command         A argument
#   N name            this side's name for messages
#   O file            a file to hand back (reap), P path (resolve, get, put)
# What is left of stdin after "." is the agent's. Answers on stdout are
# frames: "tag length" on a line, then that many bytes; the last is "end 0".
# Modes: probe (where the run goes), run (the agent), reap (after it),
# kill, clean (end everything of the run, remove its folder), watch (a file
# the agent appends to, as it grows), list (a folder's entries and a file),
# resolve, get and put (the client's file system methods).
mode=$1 run=$2 id=$3
shift 3
mask=$(umask)
[ "$mode" = put ] || umask 077
[ "$mode" = run ] || LC_ALL=C
say() { printf 'agent-context: %s\n' "$*" >&2; }
frame() { n=$(printf %s "$2" | wc -c); printf '%s %d\n%s' "$1" "$((n))" "$2"; }
ffile() { n=$(wc -c <"$2"); printf '%s %d\n' "$1" "$((n))"; cat "$2"; }
v=
dec() { v=$(printf '%bx' "$1"); v=${v%x}; }
pgid() {
  if [ -r "/proc/$1/stat" ]; then
    read -r s <"/proc/$1/stat"; s=${s##*) }; set -- $s; printf %s "$3"
  else
    ps -o pgid= -p "$1" 2>/dev/null | tr -d ' '
  fi
}
case $mode in run|watch) mkdir -p "$run" || exit 122 ;; esac
cwd= cmd= where='the other side' path= nouts=0 tab=$(printf '\t')
case $mode in
probe|run|list|put|resolve|get|reap)
  IFS= read -r line || { say "no preamble on stdin"; exit 122; }
  [ "$line" = "agent-context 1" ] || { say "an unknown preamble: $line"; exit 122; }
  [ "$mode" = run ] && set --
  ended=
  while IFS= read -r line; do
    tag=${line%"${line#?}"} rest=${line#??}
    case $tag in
    .) ended=1; break ;;
    E) dec "${rest#*"$tab"}"; export "${rest%%"$tab"*}=$v" ;;
    D) n=${rest%%"$tab"*}
       eval "[ -n \"\${$n+x}\" ]" || { dec "${rest#*"$tab"}"; export "$n=$v"; } ;;
    M) dec "$rest"; mkdir -p "$v" || exit 122 ;;
    F) dec "$rest"; f=$v; IFS= read -r line || exit 122; printf '%b' "$line" >"$f" || exit 122 ;;
    L) dec "${rest%%"$tab"*}"; t=$v; dec "${rest#*"$tab"}"
       [ -L "$v" ] || [ -e "$v" ] || ln -s "$t" "$v" || exit 122 ;;
    R) dec "$rest"; rm -f "$v" ;;
    C) dec "$rest"; cwd=$v ;;
    X) dec "$rest"; cmd=$v ;;
    N) dec "$rest"; where=$v ;;
    A) dec "$rest"; set -- "$@" "$v" ;;
    O) nouts=$((nouts + 1)); eval "out_$nouts=\$rest" ;;
    P) dec "$rest"; path=$v ;;
    esac
  done
  [ -n "$ended" ] || { say "the preamble ended early"; exit 122; } ;;
esac
case $mode in
probe)
  frame home "$HOME"
  if [ -z "$cwd" ]; then frame cd "$(pwd -P)"
  elif [ ! -e "$cwd" ]; then frame missing "$cwd"
  elif [ ! -d "$cwd" ]; then frame notdir "$cwd"
  else frame cd "$(cd -P -- "$cwd" && pwd -P)"
  fi
  for n in "$@"; do eval "[ -n \"\${$n+x}\" ]" && eval "frame \"var \$n\" \"\$$n\""; done
  frame end "" ;;
run)
  umask "$mask"
  printf '%s\n' "$$" >"$run/$id.sh"
  # Ended before the agent started: the status is the bootstrap's own.
  fail() { st=$1; shift; say "$*"; printf '%s\n' "$st" >"$run/$id.exit"; exit "$st"; }
  [ -n "$cmd" ] || fail 122 "no command"
  cd -- "$cwd" 2>/dev/null || fail 122 "cannot cd to $cwd on $where"
  case $cmd in
  */*) [ -x "$cmd" ] || fail 127 "$cmd was not found on $where" ;;
  *) command -v -- "$cmd" >/dev/null 2>&1 || fail 127 "$cmd was not found on $where (command -v there)" ;;
  esac
  exec 3<&0
  if command -v setsid >/dev/null 2>&1; then
    setsid "$cmd" "$@" <&3 3<&- & p=$!; t=-$p
  else
    "$cmd" "$@" <&3 3<&- & p=$!; g=$(pgid $$)
    if [ "$g" = "$$" ]; then t=-$g; else t=$p; fi
  fi
  exec 3<&-
  printf '%s\n' "$t" >"$run/$id.pg"
  wait "$p"; st=$?
  printf '%s\n' "$st" >"$run/$id.exit"
  kill -KILL $t 2>/dev/null
  exit "$st" ;;
reap)
  [ -f "$run/$id.pg" ] && kill -KILL $(cat "$run/$id.pg") 2>/dev/null
  if [ -f "$run/$id.exit" ]; then frame exit "$(cat "$run/$id.exit")"; else frame lost ""; fi
  i=1
  while [ "$i" -le "$nouts" ]; do
    eval "dec \"\$out_$i\""
    [ -f "$v" ] && { ffile "out $i" "$v"; rm -f "$v"; }
    i=$((i + 1))
  done
  rm -f "$run/$id.pg" "$run/$id.sh" "$run/$id.exit"
  frame end "" ;;
kill)
  sig=${1:-KILL}
  if [ -f "$run/$id.pg" ]; then kill -"$sig" $(cat "$run/$id.pg") 2>/dev/null
  elif [ -f "$run/$id.sh" ]; then kill -"$sig" $(cat "$run/$id.sh") 2>/dev/null
  fi
  frame end "" ;;
clean)
  if [ -d "$run" ]; then
    for f in "$run"/*.pg "$run"/*.sh "$run"/*.w; do
      [ -f "$f" ] && kill -KILL $(cat "$f") 2>/dev/null
    done
    rm -rf -- "$run"
  fi
  frame end "" ;;
watch)
  f=$1 every=$2 keep=$3 off=0 waited=0 seen=
  printf '%s\n' "$$" >"$run/$id.w"
  [ -f "$f" ] && { off=$(wc -c <"$f"); off=$((off)); }
  pause="$((every / 1000)).$(printf %03d $((every % 1000)))"
  while [ -d "$run" ]; do
    last=; [ -f "$run/$id.exit" ] && last=1
    if [ -f "$f" ]; then
      n=$(wc -c <"$f"); n=$((n))
      [ "$n" -lt "$off" ] && off=0
      [ "$n" -gt "$off" ] && { tail -c +$((off + 1)) "$f" | head -c $((n - off)); off=$n; }
      [ "$off" -gt "$keep" ] && { : >"$f"; off=0; }
    fi
    [ -n "$last" ] && break
    if [ -f "$run/$id.sh" ]; then seen=1; kill -0 "$(cat "$run/$id.sh")" 2>/dev/null || break
    elif [ -n "$seen" ]; then break
    else waited=$((waited + 1)); [ "$waited" -gt 240 ] && break
    fi
    sleep "$pause" 2>/dev/null || sleep 1
  done
  rm -f "$run/$id.w" ;;
list)
  if [ -d "$path" ]; then
    for e in "$path"/* "$path"/.[!.]* "$path"/..?*; do
      [ -e "$e" ] || [ -L "$e" ] || continue
      if [ -d "$e" ]; then frame dir "${e##*/}"; else frame file "${e##*/}"; fi
    done
    [ -n "$1" ] && [ -f "$path/$1" ] && ffile settings "$path/$1"
  fi
  frame end "" ;;
resolve)
  p=$path rest= hops=0
  while [ ! -e "$p" ] && [ ! -L "$p" ] && [ "$p" != / ] && [ -n "$p" ]; do
    rest=/${p##*/}$rest; p=${p%/*}; [ -n "$p" ] || p=/
  done
  while [ -L "$p" ] && [ "$hops" -lt 40 ]; do
    t=$(readlink -- "$p") || break
    case $t in /*) p=$t ;; *) p=${p%/*}/$t ;; esac
    hops=$((hops + 1))
  done
  if [ -d "$p" ]; then r=$(cd -P -- "$p" && pwd -P)
  else d=${p%/*}; r=$(cd -P -- "${d:-/}" && pwd -P)/${p##*/}
  fi
  frame real "${r%/}$rest"
  frame end "" ;;
get)
  if [ -d "$path" ]; then frame error EISDIR
  elif [ ! -e "$path" ]; then frame error ENOENT
  elif [ ! -r "$path" ]; then frame error EACCES
  else ffile content "$path"
  fi
  frame end "" ;;
put)
  frame end "" ;;
*)
  say "unknown mode $mode"; exit 122 ;;
esac
