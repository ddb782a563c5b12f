# Issue 16: "did you mean", as cobra suggests: a mistyped command (kubectl's
# lines), a mistyped kind and a mistyped flag (one line each, the nearest
# word within two edits, or one word the start of the other); nothing
# suggested when nothing is near.
$ gpuq lsit
! error: unknown command "lsit" for "gpuq"
! 
! Did you mean this?
! 	list
! 
! Run 'gpuq --help' for usage.
? 2
$ gpuq descibe workload x
! error: unknown command "descibe" for "gpuq"
! 
! Did you mean this?
! 	describe
! 
! Run 'gpuq --help' for usage.
? 2
$ gpuq frobnicate
! error: unknown command "frobnicate" for "gpuq"
! Run 'gpuq --help' for usage.
? 2
$ gpuq list clusterqueu
! error: the server doesn't have a resource type "clusterqueu" (did you mean "clusterqueues"?)
? 2
$ gpuq list resourceflavours
! error: the server doesn't have a resource type "resourceflavours" (did you mean "resourceflavors"?)
? 2
$ gpuq list xyzzy
! error: the server doesn't have a resource type "xyzzy"
? 2
$ gpuq list --statu all
! error: unknown flag: --statu (did you mean --status?)
? 2
$ gpuq list --all-namespace
! error: unknown flag: --all-namespace (did you mean --all-namespaces?)
? 2
$ gpuq schedule --until-stabel
! error: unknown flag: --until-stabel (did you mean --until-stable?)
? 2
