#!/usr/bin/env python3
"""Writes the hostile inputs of issue #19 into tests/data/regress/<target>/ and
their parse statuses into EXPECTED (checked by tests/test_regress.c). Their
messages and estimates are checked by test_reader_strict.c (GGUF metadata,
float integers), test_file_hazards.c (no file bytes in messages),
test_incomplete.c (incomplete weights, quant_method, total_size) and
test_hostile.c (device memory). Standard library only; run from anywhere."""
import struct, json, os, math
R=os.path.dirname(os.path.abspath(__file__))
def s(x): b=x.encode(); return struct.pack('<Q',len(b))+b
def kv(key,typ,val):
    out=s(key)+struct.pack('<I',typ)
    if typ==4: out+=struct.pack('<I',val)
    elif typ==5: out+=struct.pack('<i',val)
    elif typ==6: out+=struct.pack('<f',val)
    elif typ==8: out+=s(val)
    elif typ==9:  # (elem_type, list)
        et,lst=val; out+=struct.pack('<IQ',et,len(lst))+b''.join(struct.pack('<i',v) for v in lst)
    return out
BS={0:(1,4),1:(1,2),12:(256,144),14:(256,210)}
def gguf(kvs, tensors):
    h=b'GGUF'+struct.pack('<IQQ',3,len(tensors),len(kvs))
    for k in kvs: h+=kv(*k)
    off=0
    for name,typ,ne in tensors:
        h+=s(name)+struct.pack('<I',len(ne))+b''.join(struct.pack('<Q',x) for x in ne)+struct.pack('<IQ',typ,off)
        e=1
        for x in ne: e*=x
        be,bb=BS[typ]; off+=(e//be*bb+31)//32*32
    return h  # header only: the harness reads it as a prefix-complete header
base=[("general.architecture",8,"llama"),("llama.block_count",4,2),("llama.context_length",4,512),
      ("llama.embedding_length",4,256),("llama.feed_forward_length",4,512),("llama.attention.head_count",4,4),
      ("llama.attention.head_count_kv",4,2)]
def llama_tensors(lin=12, H=256, F=512, kvd=128, L=2, V=32):
    t=[("token_embd.weight",1,[H,V])]
    for l in range(L):
        t+=[(f"blk.{l}.attn_norm.weight",0,[H]),(f"blk.{l}.attn_q.weight",lin,[H,H]),(f"blk.{l}.attn_k.weight",lin,[H,kvd]),
            (f"blk.{l}.attn_v.weight",lin,[H,kvd]),(f"blk.{l}.attn_output.weight",lin,[H,H]),(f"blk.{l}.ffn_norm.weight",0,[H]),
            (f"blk.{l}.ffn_gate.weight",lin,[H,F]),(f"blk.{l}.ffn_up.weight",lin,[H,F]),(f"blk.{l}.ffn_down.weight",lin,[F,H])]
    return t+[("output_norm.weight",0,[H]),("output.weight",lin,[H,V])]
def with_(repl=None, add=None):
    k=[x for x in base if not repl or x[0]!=repl]
    if add: k.append(add)
    return k
exp=[]
def put(target,name,data,status,why):
    open(os.path.join(R,target,name),'wb').write(data if isinstance(data,bytes) else data.encode())
    exp.append((f"{target}/{name}",status,why))
# item 7
for name,k,why in [
  ("metadata-block-count-negative.gguf", with_("llama.block_count",("llama.block_count",5,-5)), "issue 19 item 7"),
  ("metadata-head-count-zero.gguf", with_("llama.attention.head_count",("llama.attention.head_count",4,0)), "issue 19 item 7"),
  ("metadata-head-count-kv-zero.gguf", with_("llama.attention.head_count_kv",("llama.attention.head_count_kv",4,0)), "issue 19 item 7"),
  ("metadata-softcap-nan.gguf", with_(None,("llama.final_logit_softcapping",6,float('nan'))), "issue 19 item 7"),
  ("metadata-softcap-infinite.gguf", with_(None,("llama.final_logit_softcapping",6,float('inf'))), "issue 19 item 7"),
  ("metadata-embedding-length-string.gguf", with_("llama.embedding_length",("llama.embedding_length",8,"256")), "issue 19 item 7"),
  ("metadata-ffn-per-layer-negative.gguf", with_("llama.feed_forward_length",("llama.feed_forward_length",9,(5,[512,-1]))), "issue 19 item 7"),
  ("metadata-head-count-kv-empty-array.gguf", with_("llama.attention.head_count_kv",("llama.attention.head_count_kv",9,(5,[]))), "issue 19 item 7")]:
    put("gguf",name,gguf(k,llama_tensors()),-4,why)
# item 10: Q6_K with 64-row K/V (not whole 512-byte blocks)
k=[x for x in base if x[0]!="llama.attention.head_count"]+[("llama.attention.head_count",4,8)]
put("gguf","q6k-kv-rows-not-512-byte-blocks.gguf",gguf(k,llama_tensors(lin=14,kvd=64)),0,"issue 19 item 10")
# item 1: 70B metadata, one tiny tensor
k70=[("general.architecture",8,"llama"),("llama.block_count",4,80),("llama.context_length",4,8192),
     ("llama.embedding_length",4,8192),("llama.feed_forward_length",4,28672),("llama.attention.head_count",4,64),
     ("llama.attention.head_count_kv",4,8),("llama.vocab_size",4,128256)]
put("gguf","70b-metadata-one-tiny-tensor.gguf",gguf(k70,[("x",0,[16])]),0,"issue 19 item 1")
# item 5: bytes before the format is proven (messages must not echo them)
put("gguf","version-unknown-then-secret.gguf",b"GGUF\x07\x00\x00\x00SECRETSECRETSECRETSECRET",-6,"issue 19 item 5")
put("gguf","counts-beyond-limits.gguf",b"GGUF\x03\x00\x00\x00AAAAAAAABBBBBBBBCCCCCCCC",-19,"issue 19 item 5")
secret=b"SECRET-TOKEN=hunter2-a1b2c3d4e5f6\nroot:x:0:0:root:/root:/bin/bash\n"
put("safetensors","text-file-as-header-length.safetensors",secret,-19,"issue 19 item 5")
put("safetensors","no-brace-after-length.safetensors",b'\x0e\x00\x00\x00\x00\x00\x00\x00["SECRET",  1]',-4,"issue 19 item 5")
put("st_index","control-byte-in-key.json",'{"SECRET\x01TOKEN": 1}',-4,"issue 19 item 5")
put("st_index","unpaired-surrogate.json",'{"a": "\\udead-SECRET"}',-4,"issue 19 item 5")
put("st_index","missing-colon.json",'{"SECRET" 1}',-4,"issue 19 item 5")
# item 9
def st(js):
    b=js.encode(); return struct.pack('<Q',len(b))+b
put("safetensors","shape-written-as-4.0.safetensors",st('{"a":{"dtype":"F32","shape":[4.0],"data_offsets":[0,16]}}'),-4,"issue 19 item 9")
put("safetensors","shape-written-as-1e1.safetensors",st('{"a":{"dtype":"F32","shape":[1e1],"data_offsets":[0,40]}}'),-4,"issue 19 item 9")
put("safetensors","offset-written-as-16.0.safetensors",st('{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16.0]}}'),-4,"issue 19 item 9")
# item 1: the embedding of a 70B model alone (header; the config is not part of a header)
put("safetensors","70b-embedding-only.safetensors",st(json.dumps({"model.embed_tokens.weight":{"dtype":"BF16","shape":[128256,8192],"data_offsets":[0,128256*8192*2]}})),0,"issue 19 item 1")
put("st_index","total-size-written-as-float.json",'{"metadata": {"total_size": 1.6e1}, "weight_map": {"a": "m.safetensors"}}',0,"issue 19 item 9")
exp.append(("st_index/merge-conflict-marker-after-the-object.json",-4,"a real index (github:amansingh61/bloom)"))
# item 7: quant_method
cfg=json.load(open(os.path.join(R, '..', 'models', 'llama-2-7b.json')))
c1=dict(cfg); c1["quantization_config"]={"quant_method":"hqq","nbits":2}
put("hf_config","quant-method-not-modelled.json",json.dumps(c1),0,"issue 19 item 7")
c2=dict(cfg); c2["quantization_config"]={"quant_method":"a b'c\u0007"}
put("hf_config","quant-method-not-a-name.json",json.dumps(c2),0,"issue 19 item 7")
# item 3
put("spec","device-memory-1e-10.json",'{"model":"llama-2-70b","device":{"name":"H100-80GB","memory_gib":1e-10}}',0,"issue 19 item 3 (refused by the estimate: E_RANGE)")
put("spec","memory-below-floor.json",'{"model":"gpt2","device":{"memory_gib":0.2}}',0,"issue 19 item 3 (refused by the estimate: E_RANGE)")
with open(os.path.join(R,'EXPECTED'),'w') as f:
    f.write("# target/file  parse-status  why\n# The status vf_run() returns (tests/fuzz/harness.c: the parse; a spec's estimate\n# errors are checked by its promises and by test_hostile). Checked by tests/test_regress.c.\n")
    for p,st_,why in exp: f.write(f"{p} {st_} {why}\n")
print(len(exp))
