#!/usr/bin/env python3
"""A library shaped unlike ../shared/bench/mktree.py's, for the search-rest bench's --tree:
camera folders by year and month, screenshots and chat images, a code checkout (thousands of
equal names), documents by year, music whose empty tracks come first by name; a quarter to
three quarters of the files hold bytes. Deterministic for a seed.
Usage: python3 scripts/bench/mktree-other.py ROOT [FILES=200000] [SEED=7]"""
import os, random, sys
root = sys.argv[1]; N = int(sys.argv[2]) if len(sys.argv) > 2 else 200_000; rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
people = ["Anna", "Jörg", "Zoë", "Søren", "Łukasz", "María José", "李雷", "さくら", "Олег", "Νίκος", "Chloé", "Ahmed"]
places = ["Lisboa", "Málaga", "Kyoto 京都", "Zürich", "Reykjavík", "New York", "Côte d'Azur", "Praha", "Seoul 서울", "Hà Nội"]
words = ["holiday", "birthday", "wedding", "garden", "kids", "school", "beach", "hike", "concert", "renovation", "car", "taxes"]
made = set(); count = 0
def mk(d):
    if d not in made:
        os.makedirs(os.path.join(root, d), exist_ok=True); made.add(d)
def put(d, name, size=0):
    global count
    mk(d); p = os.path.join(root, d, name)
    if os.path.exists(p): return
    with open(p, "wb") as f:
        if size: f.write(b"x" * size)
    count += 1
while count < N:
    k = rng.random()
    y = rng.randint(2004, 2025); m = rng.randint(1, 12); dd = rng.randint(1, 28)
    if k < 0.35:  # camera roll, deep: Photos/YYYY/YYYY-MM/event/
        d = f"Photos/{y}/{y}-{m:02d}/{rng.choice(words)} {rng.choice(places)}"
        for _ in range(rng.randint(20, 80)):
            put(d, rng.choice([f"IMG_{rng.randint(0,9999):04d}.JPG", f"DSC_{rng.randint(0,9999):04d}.NEF", f"PXL_{y}{m:02d}{dd:02d}_{rng.randint(0,999999):06d}.jpg"]), rng.choice([0, 0, 0, rng.randint(1, 4000)]))
    elif k < 0.45:  # screenshots and chat images
        d = f"Phone/{rng.choice(people)}/{rng.choice(['Screenshots', 'WhatsApp Images', 'Downloads'])}"
        for _ in range(rng.randint(10, 40)):
            put(d, rng.choice([f"Screenshot {y}-{m:02d}-{dd:02d} at {rng.randint(0,23)}.{rng.randint(0,59):02d}.{rng.randint(0,59):02d}.png", f"WhatsApp Image {y}-{m:02d}-{dd:02d} at {rng.randint(10,23)}.{rng.randint(10,59)}.{rng.randint(10,59)}.jpeg"]))
    elif k < 0.70:  # a code checkout: many equal names, deep
        proj = f"Code/{rng.choice(['web', 'app', 'tools', 'site'])}-{rng.randint(1,40)}"
        pkg = f"{proj}/node_modules/{rng.choice(['lodash', 'react', 'express', '@types/node', 'zod', 'chalk', 'debug', 'ms'])}{rng.randint(0,300)}"
        for sub in ["", "/lib", "/dist", "/src/utils"]:
            for name in rng.sample(["index.js", "package.json", "README.md", "LICENSE", "index.d.ts", "utils.js", "CHANGELOG.md", "main.css"], rng.randint(2, 6)):
                put(pkg + sub, name, rng.randint(0, 300))
    elif k < 0.85:  # documents by year
        d = f"Documents/{rng.choice(people)}/{rng.choice(['Taxes', 'Bank', 'School', 'Work', 'Health'])}/{y}"
        for _ in range(rng.randint(5, 25)):
            put(d, rng.choice([f"Invoice_{y}_{m:02d}_{rng.randint(1,999)}.pdf", f"Kontoauszug {y}-{m:02d}.pdf", f"{rng.choice(words).title()} notes {dd}.{m}.{y}.docx", f"scan{rng.randint(0,99999):05d}.pdf"]), rng.randint(0, 2000))
    else:  # music
        artist = rng.choice(["Björk", "Sigur Rós", "Daft Punk", "坂本龍一", "Édith Piaf", "Kraftwerk", "Los Lobos", "BTS 방탄소년단"])
        d = f"Music/{artist}/{rng.choice(['Greatest Hits', 'Live', 'Demos', 'Unplugged'])} ({y})"
        for t in range(1, rng.randint(8, 16)):
            put(d, f"{t:02d} {rng.choice(words).title()} {rng.choice(['Song', 'Theme', 'Mix', 'Remix'])}.{rng.choice(['mp3', 'flac', 'm4a'])}")
print(f"dirs={len(made)} files={count}")
