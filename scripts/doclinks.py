#!/usr/bin/env python3
# Usage: python3 scripts/doclinks.py [repo root]. Exits 1 on a broken link.
# Checks every relative link and #anchor in README.md and docs/*.md:
# the file exists, and the anchor is a heading's GitHub slug in it.
import re,os,sys,glob
root=sys.argv[1] if len(sys.argv) > 1 else "."
def slugs(path):
    out=set();seen={};code=False
    for line in open(path,encoding='utf-8'):
        if line.startswith('```'): code=not code; continue
        if code: continue
        m=re.match(r'(#{1,6}) +(.*?)\s*$',line)
        if not m: continue
        s=m.group(2).lower()
        s=re.sub(r'[^\w\- ]','',s); s=s.replace(' ','-')
        n=seen.get(s,0); seen[s]=n+1
        out.add(s if n==0 else f'{s}-{n}')
    return out
bad=0;count=0
files=[os.path.join(root,'README.md')]+glob.glob(os.path.join(root,'docs','*.md'))
for f in files:
    code=False
    for i,line in enumerate(open(f,encoding='utf-8'),1):
        if line.startswith('```'): code=not code; continue
        if code: continue
        line=re.sub(r'`[^`]*`','',line)
        for m in re.finditer(r'\]\(([^)\s]+)\)',line):
            t=m.group(1)
            if re.match(r'[a-z]+:',t): continue
            count+=1
            p,_,a=t.partition('#')
            target=os.path.normpath(os.path.join(os.path.dirname(f),p)) if p else f
            if not os.path.exists(target):
                print(f'{f}:{i}: {t}: no file {target}'); bad+=1; continue
            if a and (not target.endswith('.md') or a not in slugs(target)):
                print(f'{f}:{i}: {t}: no heading #{a} in {target}'); bad+=1
print(f'{count} relative links checked, {bad} broken')
sys.exit(1 if bad else 0)
