# Issue 16: kueuectl's create resourceflavor --node-labels, --node-taints and
# --tolerations, with parseTaint's and parseToleration's rules and texts. The
# object is what gpuq apply of the equivalent manifest gives (compared in a
# second database, $TMP/apply.db, without uid and creationTimestamp).
$ gpuq create resourceflavor spot --node-labels pool=spot,cloud.google.com/gke-spot=true --node-taints key1=value:NoSchedule,key2:NoExecute --tolerations key1=value:NoSchedule,key2:NoExecute,key3=value,key4,:PreferNoSchedule
> resourceflavor.kueue.x-k8s.io/spot created
$ gpuq get rf spot -o json | python3 -c 'import json,sys; o=json.load(sys.stdin); del o["metadata"]["uid"], o["metadata"]["creationTimestamp"]; print(json.dumps(o, indent=1))'
= spot
$ echo '{apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {name: spot}, spec: {nodeLabels: {pool: spot, cloud.google.com/gke-spot: "true"}, nodeTaints: [{key: key1, value: value, effect: NoSchedule}, {key: key2, effect: NoExecute}], tolerations: [{key: key1, operator: Equal, value: value, effect: NoSchedule}, {key: key2, operator: Exists, effect: NoExecute}, {key: key3, operator: Equal, value: value}, {key: key4, operator: Exists}, {operator: Exists, effect: PreferNoSchedule}]}}' | GPUQ_DB=$TMP/apply.db gpuq apply -f - -o name
> resourceflavor.kueue.x-k8s.io/spot
$ GPUQ_DB=$TMP/apply.db gpuq get rf spot -o json | python3 -c 'import json,sys; o=json.load(sys.stdin); del o["metadata"]["uid"], o["metadata"]["creationTimestamp"]; print(json.dumps(o, indent=1))'
== spot
# Operator Exists when the key or the value is missing; omitted fields are
# left out, as Go's omitempty does.
$ gpuq get rf spot -o jsonpath='{range .spec.tolerations[*]}{.key}|{.operator}|{.value}|{.effect}{"\n"}{end}'
> key1|Equal|value|NoSchedule
> key2|Exists||NoExecute
> key3|Equal|value|
> key4|Exists||
> |Exists||PreferNoSchedule
$ gpuq get rf spot -o jsonpath='{.spec.nodeTaints}'
> [{"effect":"NoSchedule","key":"key1","value":"value"},{"effect":"NoExecute","key":"key2"}]

# Repeated flags add up; a later label key wins, as in pflag's map; labels
# are sorted as Go writes a map. A flavor with no flags has an empty spec.
$ gpuq create rf twice --node-taints a:NoSchedule --node-taints b=1:NoExecute --node-labels pool=a,zone=x --node-labels pool=b --dry-run -o json
> {
>     "apiVersion": "kueue.x-k8s.io/v1beta2",
>     "kind": "ResourceFlavor",
>     "metadata": {
>         "name": "twice"
>     },
>     "spec": {
>         "nodeLabels": {
>             "pool": "b",
>             "zone": "x"
>         },
>         "nodeTaints": [
>             {
>                 "key": "a",
>                 "effect": "NoSchedule"
>             },
>             {
>                 "key": "b",
>                 "value": "1",
>                 "effect": "NoExecute"
>             }
>         ]
>     }
> }
$ gpuq create rf bare -o yaml --dry-run
> apiVersion: kueue.x-k8s.io/v1beta2
> kind: ResourceFlavor
> metadata:
>   name: bare
> spec: {}
$ gpuq create rf/bare -o name
> resourceflavor.kueue.x-k8s.io/bare
$ gpuq create rf bare
! Error from server (AlreadyExists): resourceflavors.kueue.x-k8s.io "bare" already exists
? 1

# Taints: KEY[=VALUE]:EFFECT, the effect required, one per key and effect.
$ gpuq create rf bad --node-taints key1=value
! error: invalid taint spec: key1=value
? 2
$ gpuq create rf bad --node-taints a=b=c:NoSchedule
! error: invalid taint spec: a=b=c:NoSchedule
? 2
$ gpuq create rf bad --node-taints k:v:NoSchedule
! error: invalid taint spec: k:v:NoSchedule
? 2
$ gpuq create rf bad --node-taints ,k:NoSchedule
! error: invalid taint spec
? 2
$ gpuq create rf bad --node-taints k:NoSchedul
! error: invalid taint effect: NoSchedul, unsupported taint effect
? 2
$ gpuq create rf bad --node-taints :NoSchedule
! error: invalid taint spec: :NoSchedule, invalid value "": name part must be non-empty
? 2
$ gpuq create rf bad --node-taints bad_key_:NoSchedule
! error: invalid taint spec: bad_key_:NoSchedule, invalid value "bad_key_": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character
? 2
$ gpuq create rf bad --node-taints 'k=a"b:NoSchedule'
!~ error: invalid taint spec: k=a"b:NoSchedule, invalid value "a\\"b": a valid label must .*
? 2
$ gpuq create rf bad --node-taints k1:NoSchedule,k1=x:NoSchedule
! error: duplicated taints with the same key and effect: k1=x:NoSchedule
? 2
$ gpuq create rf ok --node-taints k1:NoSchedule,k1:NoExecute --dry-run
> resourceflavor.kueue.x-k8s.io/ok created (dry run)

# Tolerations: KEY=VALUE:EFFECT, KEY:EFFECT, KEY=VALUE, KEY or :EFFECT.
$ gpuq create rf bad --tolerations =value
! error: invalid toleration spec: =value
? 2
$ gpuq create rf bad --tolerations a=b=c
! error: invalid toleration spec: a=b=c
? 2
$ gpuq create rf bad --tolerations key,
! error: invalid toleration spec
? 2
$ gpuq create rf bad --tolerations k:Sometimes
! error: invalid taint effect: Sometimes, unsupported taint effect
? 2
$ gpuq create rf bad --tolerations 'Bad Key'
! error: invalid toleration spec: Bad Key, invalid value "Bad Key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character
? 2
$ gpuq create rf bad --tolerations k=-v-
! error: invalid toleration spec: k=-v-, invalid value "-v-": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character
? 2

# Labels, and flags of other kinds.
$ gpuq create rf bad --node-labels =x
! error: invalid --node-labels "=x": want KEY=VALUE[,KEY=VALUE]
? 2
$ gpuq create rf bad --node-taints a:NoSchedule -c cq
! error: --clusterqueue is for localqueue
? 2
$ gpuq create rf bad --nominal-quota a:cpu=1
! error: --nominal-quota is for clusterqueue
? 2
# Kueue allows 8 taints; the decoder apply uses counts them.
$ gpuq create rf many --node-taints a:NoSchedule,b:NoSchedule,c:NoSchedule,d:NoSchedule,e:NoSchedule,f:NoSchedule,g:NoSchedule,h:NoSchedule,i:NoSchedule
!~ error: gpuq create: document 1 \(ResourceFlavor many\): spec.nodeTaints: .*
? 1
$ gpuq get rf -o name
> resourceflavor.kueue.x-k8s.io/bare
> resourceflavor.kueue.x-k8s.io/spot
