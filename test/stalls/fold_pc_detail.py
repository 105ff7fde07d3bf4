#!/usr/bin/env python3
"""What STRATA_PC_SAMPLING_DETAIL=B makes of a recorded PC-sampling profile, for the core's tests:
keeps B pc nodes (the 16 heaviest by pc_samples of every kernel node with 2% of the samples, then
the heaviest of the rest; profiler_runtime/src/gpu/activity/pc_detail.h) and moves the others'
metrics onto their parent, the kernel node. Frames, strings, blobs stay as they were.
usage: fold_pc_detail.py IN.strata OUT.strata B"""
import struct
import sys
src,dst,B=sys.argv[1],sys.argv[2],int(sys.argv[3])
d=bytearray(open(src,'rb').read())
table,count=struct.unpack_from("<QI",d,24)
secs={}
for i in range(count):
    kind,rs,off,size,n=struct.unpack_from("<IIQQQ",d,table+32*i); secs[kind]=[rs,off,size,n]
def strings():
    off=secs[1][1]; cnt,=struct.unpack_from("<I",d,off); offs=struct.unpack_from(f"<{cnt+1}I",d,off+8); b=off+8+4*(cnt+1)
    return [bytes(d[b+offs[i]:b+offs[i+1]]).decode() for i in range(cnt)]
S=strings()
_,fo,_,fn=secs[4]; fkind=[struct.unpack_from("<I",d,fo+32*i)[0] for i in range(fn)]
_,no,_,nn=secs[5]; nodes=[struct.unpack_from("<II",d,no+8*i) for i in range(nn)]
_,mo,_,mn=secs[6]; mnames=[S[struct.unpack_from("<I",d,mo+16*i)[0]] for i in range(mn)]
_,ro,_,rn=secs[7]; recs=[list(struct.unpack_from("<IIQdddd",d,ro+48*i)) for i in range(rn)]
ps=mnames.index("pc_samples")
w={}
for r in recs:
    if r[1]==ps: w[r[0]]=r[3]
pcs=[i for i,(p,f) in enumerate(nodes) if fkind[f]==6]
heavy=lambda n:(-w.get(n,0),n)
total=sum(w.get(n,0) for n in pcs)
by_kernel={}
for n in pcs: by_kernel.setdefault(nodes[n][0],[]).append(n)
floor=[]
for k,ns in by_kernel.items():
    if sum(w.get(n,0) for n in ns)>=0.02*total: floor+=sorted(ns,key=heavy)[:16]
floor=sorted(floor,key=heavy)[:B]
keep=set(floor)
keep|=set([n for n in sorted(pcs,key=heavy) if n not in keep][:B-len(keep)])
drop=set(pcs)-keep
newid={};out=[]
for i,(p,f) in enumerate(nodes):
    if i in drop: continue
    newid[i]=len(out); out.append((0xFFFFFFFF if p==0xFFFFFFFF else newid[p],f))
acc={}
for r in recs:
    n=r[0]; tgt=newid[nodes[n][0]] if n in drop else newid[n]
    k=(tgt,r[1])
    if k in acc:
        a=acc[k]; a[2]+=r[2]; a[3]+=r[3]; a[4]=min(a[4],r[4]); a[5]=max(a[5],r[5]); a[6]=0.0
    else: acc[k]=[tgt,r[1],r[2],r[3],r[4],r[5],r[6]]
newrecs=[acc[k] for k in sorted(acc)]
nb=b"".join(struct.pack("<II",*x) for x in out); rb=b"".join(struct.pack("<IIQdddd",*x) for x in newrecs)
# rebuild: sections in original order, replacing 5 and 7
body=bytearray(); entries=[]
for kind,(rs,off,size,n) in sorted(secs.items(),key=lambda kv:kv[1][1]):
    data=bytes(d[off:off+size]); 
    if kind==5: data,n=nb,len(out)
    if kind==7: data,n=rb,len(newrecs)
    while (64+len(body))%8: body.append(0)
    entries.append((kind,rs,64+len(body),len(data),n)); body+=data
while (64+len(body))%8: body.append(0)
toff=64+len(body)
for e in entries: body+=struct.pack("<IIQQQ",*e)
hdr=bytearray(d[:64]); total=64+len(body)
struct.pack_into("<QQI",hdr,16,total,toff,len(entries))
h=2166136261
for b in body: h=((h^b)*16777619)&0xFFFFFFFF
struct.pack_into("<I",hdr,48,h)
open(dst,'wb').write(bytes(hdr)+bytes(body))
print(f"{src}: pc nodes {len(pcs)} -> {len(keep)}, {len(d)} -> {total} bytes")
