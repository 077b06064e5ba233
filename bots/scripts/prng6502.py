# Independent check: step the 6502 listing instruction by instruction.
class CPU:
    def __init__(s): s.A=0; s.X=0; s.C=0; s.Z=0; s.mem={}
def randomize(c, fc):
    m=c.mem
    c.A=fc; c.A^=m[0x304]; c.Z=(c.A==0)
    # ROR A
    newc=c.A&1; c.A=(c.A>>1)|(c.C<<7); c.C=newc
    m[0x304]=c.A
    c.A=fc; c.A^=m[0x305]
    newc=(c.A>>7)&1; c.A=((c.A<<1)&0xff)|c.C; c.C=newc
    m[0x305]=c.A
    c.A=m[0x304]
    while True:
        m[0x80]=c.A; c.C=1
        r=c.A-6-(1-c.C); c.C=1 if r>=0 else 0; c.A=r&0xff
        if not c.C: break
    c.A=m[0x80]; c.C=0; c.A=c.A+1; m[0x80]=c.A
    c.X=m[0x80]; c.C = 1 if c.X>=7 else 0
    assert not c.C
    c.A=m[0x305]
    while True:
        m[0x81]=c.A; c.C=1
        r=c.A-6; c.C=1 if r>=0 else 0; c.A=r&0xff
        if not c.C: break
    c.A=m[0x81]; c.C=0; c.A+=1; m[0x81]=c.A
def cmp(c,a,b):
    c.C = 1 if a>=b else 0; return a==b
def pick(c, fcbox, shop, stage):
    m=c.mem
    first=True; rolls=0
    while True:
        if not first:
            assert c.C==1   # every re-roll comes from a CMP that found equality
            rolls+=1
            if rolls==45: rolls=0; fcbox[0]=(fcbox[0]+1)&0xff
        first=False
        randomize(c, fcbox[0])
        if shop!=0: return
        if cmp(c, stage, 6) or stage>=6: return
        if cmp(c,3,m[0x80]): continue
        if cmp(c,3,m[0x81]): continue
        if stage>=3: cmp(c,stage,3); return
        cmp(c,stage,3)
        if cmp(c,2,m[0x80]): continue
        if cmp(c,2,m[0x81]): continue
        if stage!=0: return
        if cmp(c,5,m[0x80]): continue
        if cmp(c,5,m[0x81]): continue
        return
def seq(frames, shop, stage, repick=True):
    c=CPU(); c.mem[0x304]=63; c.mem[0x305]=133
    out=[]
    for fc in frames:
        box=[fc]
        c.C=1  # carry at entry (see prng.rs)
        pick(c, box, shop, stage)
        if repick and cmp(c, c.mem[0x80], c.mem[0x81]):
            pick(c, box, shop, stage)
        out.append((c.mem[0x80], c.mem[0x81]))
    return out, (c.mem[0x304], c.mem[0x305])
frames=[(60+45*i)&0xff for i in range(20)]
print(frames)
print(seq(frames,0,0))
print(seq(frames,1,0))
print(seq(frames,1,0,False))
