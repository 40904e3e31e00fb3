import Foundation

/// The strokes of a component of ink, followed through the places where they cross: how digits
/// that overlap come apart when no seam from top to bottom parts them (a 7 whose bar runs into the
/// 0 beside it, the tail of a 3 drawn across a 6).
///
/// The component's ink is thinned to a skeleton one pixel wide (Zhang–Suen, then corners of
/// staircases removed). The skeleton is a graph: its ends and junctions are nodes, the lines
/// between them edges; spurs shorter than the pen is wide are dropped, and two junctions closer
/// than a pen width are one crossing. At each junction the edges that go straight on are paired
/// (of four, the two pairs that bend least; of three, the straightest pair when it bends less
/// than 45°), as a pen goes through a crossing. Edges joined by pairs are one stroke; each ink
/// pixel belongs to the stroke nearest it along the ink, and pixels within a pen width of a
/// crossing to every stroke through it. The strokes are only candidates: the number reader weighs
/// them against the seams' pieces (`InkSeams`).
struct InkStrokes {
    /// Each stroke's pixels (indices into the page), at least two strokes, or none when the
    /// component is one stroke or has no junction.
    var strokes: [[Int]] = []

    /// Edges from a junction to an end shorter than this many pen widths are spurs.
    static let spurLength: Float = 1.2
    /// Junctions joined by an edge shorter than this many pen widths are one crossing.
    static let crossingLength: Float = 1.0
    /// The least angle, in degrees, between the two edges of a pair at a crossing (180 = straight
    /// on) and at a junction of three.
    static let crossingAngle: Float = 120
    static let junctionAngle: Float = 135
    /// Strokes shorter than this many line heights (along the skeleton) join their neighbours.
    static let shortestStroke: Float = 0.2

    /// The skeleton is found on a grid of cells at most `cellsPerLine` to the line height (and at
    /// least two cells to the pen's width), so that it costs the same at any resolution.
    static let cellsPerLine: Float = 64

    init(component c: InkComponents.Component, pageWidth: Int, strokeWidth: Float, lineHeight h: Float) {
        guard Float(c.width) >= 0.45 * h, c.width >= 6, c.height >= 6 else { return }
        let f = max(1, min(Int(h / Self.cellsPerLine), Int(strokeWidth / 2)))
        let sw = strokeWidth / Float(f), lineCells = h / Float(f)
        // Cells with a border of background; `ink`: cells holding any of the component's pixels,
        // `mask`: those at least half covered, which are thinned.
        let w = (c.width + f - 1) / f + 2, ht = (c.height + f - 1) / f + 2
        var covered = [Int32](repeating: 0, count: w * ht)
        for p in c.pixels { covered[Self.cell(p, c, pageWidth, f, w)] += 1 }
        let ink = covered.map { UInt8($0 > 0 ? 1 : 0) }
        var mask = covered.map { UInt8(2 * Int($0) >= f * f ? 1 : 0) }
        Self.fillHoles(&mask, width: w, height: ht, smallerThan: Int(max(4, sw * sw)))
        Self.thin(&mask, width: w, height: ht)
        var graph = SkeletonGraph(mask, width: w, height: ht)
        graph.prune(spur: max(3, Self.spurLength * sw))
        graph.mergeJunctions(closerThan: max(2, Self.crossingLength * sw))
        let (strokeOfEdge, count, crossings) = graph.strokes(reach: max(3, 2 * sw),
                                                            crossing: cos(Self.crossingAngle * .pi / 180),
                                                            junction: cos(Self.junctionAngle * .pi / 180))
        // Strokes shorter than a fifth of the line are parts of the strokes they touch (ink a pen
        // leaves at a sharp turn, a blot thinned to a knot).
        var length = [Int](repeating: 0, count: count)
        for (e, edge) in graph.edges.enumerated() where strokeOfEdge[e] >= 0 { length[strokeOfEdge[e]] += edge.pixels.count }
        let long = length.map { Float($0) >= Self.shortestStroke * lineCells }
        guard long.filter({ $0 }).count >= 2 else { return }
        // Each cell of ink to the stroke whose skeleton is nearest along the ink (breadth first).
        var owner = [Int32](repeating: -1, count: w * ht)
        var queue: [Int] = []
        for (e, edge) in graph.edges.enumerated() where strokeOfEdge[e] >= 0 && long[strokeOfEdge[e]] {
            for p in edge.pixels where owner[p] < 0 {
                owner[p] = Int32(strokeOfEdge[e])
                queue.append(p)
            }
        }
        var head = 0
        while head < queue.count {
            let p = queue[head]; head += 1
            for q in SkeletonGraph.around(p, w) where ink[q] != 0 && owner[q] < 0 {
                owner[q] = owner[p]
                queue.append(q)
            }
        }
        // Cells within a pen width of a crossing belong to every stroke through it.
        var shared = [[Int]](repeating: [], count: w * ht)
        let radius = max(2, sw)
        for crossing in crossings {
            let through = crossing.strokes.filter { long[$0] }.sorted()
            guard through.count >= 2 else { continue }
            for y in max(0, Int(crossing.y - radius))...min(ht - 1, Int(crossing.y + radius) + 1) {
                for x in max(0, Int(crossing.x - radius))...min(w - 1, Int(crossing.x + radius) + 1) where ink[y * w + x] != 0 {
                    let dx = Float(x) - crossing.x, dy = Float(y) - crossing.y
                    if dx * dx + dy * dy <= radius * radius { shared[y * w + x] += through }
                }
            }
        }
        var out = [[Int]](repeating: [], count: count)
        for p in c.pixels {
            let k = Self.cell(p, c, pageWidth, f, w)
            if shared[k].isEmpty {
                if owner[k] >= 0 { out[Int(owner[k])].append(p) }
                continue
            }
            for s in Set(shared[k] + (owner[k] >= 0 ? [Int(owner[k])] : [])).sorted() { out[s].append(p) }
        }
        strokes = out.filter { !$0.isEmpty }
        if strokes.count < 2 { strokes = [] }
    }

    /// The cell of page pixel `p` of component `c` on a grid of `f`×`f` cells `w` wide with a border.
    static func cell(_ p: Int, _ c: InkComponents.Component, _ pageWidth: Int, _ f: Int, _ w: Int) -> Int {
        ((p / pageWidth - c.y0) / f + 1) * w + (p % pageWidth - c.x0) / f + 1
    }

    /// Fills the holes (background not connected to the border) of fewer than `limit` pixels:
    /// pinholes of paper texture in a thick stroke would otherwise thin to small loops.
    static func fillHoles(_ mask: inout [UInt8], width w: Int, height h: Int, smallerThan limit: Int) {
        var seen = [Bool](repeating: false, count: w * h)
        var stack: [Int] = [], region: [Int] = []
        for start in 0..<(w * h) where mask[start] == 0 && !seen[start] {
            region.removeAll(keepingCapacity: true)
            var touchesBorder = false
            seen[start] = true
            stack.append(start)
            while let p = stack.popLast() {
                region.append(p)
                let x = p % w, y = p / w
                if x == 0 || y == 0 || x == w - 1 || y == h - 1 { touchesBorder = true; continue }
                for q in [p - 1, p + 1, p - w, p + w] where mask[q] == 0 && !seen[q] {
                    seen[q] = true
                    stack.append(q)
                }
            }
            if !touchesBorder && region.count < limit { for p in region { mask[p] = 1 } }
        }
    }

    /// Zhang–Suen thinning to 8-connected lines one pixel wide, then the corner pixel of each
    /// staircase step removed (a pixel whose only two neighbours are its neighbours to one side
    /// and above or below). The border of the mask must be background.
    static func thin(_ mask: inout [UInt8], width w: Int, height h: Int) {
        var remove: [Int] = []
        var changed = true
        while changed {
            changed = false
            for pass in 0..<2 {
                remove.removeAll(keepingCapacity: true)
                for y in 1..<(h - 1) {
                    for x in 1..<(w - 1) where mask[y * w + x] != 0 {
                        let n = ring(mask, y * w + x, w)
                        let b = n.nonzeroBitCount
                        guard b >= 2, b <= 6, transitions(n) == 1 else { continue }
                        // Bits: 0 N, 1 NE, 2 E, 3 SE, 4 S, 5 SW, 6 W, 7 NW.
                        let first: UInt8 = pass == 0 ? 0b0001_0101 : 0b0100_0101    // N E S / N E W
                        let second: UInt8 = pass == 0 ? 0b0101_0100 : 0b0101_0001   // E S W / N S W
                        guard n & first != first, n & second != second else { continue }
                        remove.append(y * w + x)
                    }
                }
                for p in remove { mask[p] = 0 }
                if !remove.isEmpty { changed = true }
            }
        }
        for y in 1..<(h - 1) {
            for x in 1..<(w - 1) where mask[y * w + x] != 0 {
                let n = ring(mask, y * w + x, w)
                guard n.nonzeroBitCount == 2 else { continue }
                if n & 0b0001_0001 != 0 && n & 0b0100_0100 != 0 { mask[y * w + x] = 0 }
            }
        }
    }

    /// The 8 neighbours of `p` as bits, clockwise from north (bit 0).
    static func ring(_ mask: [UInt8], _ p: Int, _ w: Int) -> UInt8 {
        func bit(_ q: Int, _ i: UInt8) -> UInt8 { mask[q] != 0 ? 1 << i : 0 }
        return bit(p - w, 0) | bit(p - w + 1, 1) | bit(p + 1, 2) | bit(p + w + 1, 3)
            | bit(p + w, 4) | bit(p + w - 1, 5) | bit(p - 1, 6) | bit(p - w - 1, 7)
    }

    /// Changes from background to ink going once round the ring.
    static func transitions(_ n: UInt8) -> Int {
        (n & ~((n >> 1) | (n << 7))).nonzeroBitCount
    }
}

/// A skeleton as a graph: ends and junctions (nodes) joined by lines of pixels (edges).
struct SkeletonGraph {
    struct Node { var pixels: [Int]; var x: Float; var y: Float; var removed = false }
    struct Edge { var a: Int; var b: Int; var pixels: [Int]; var removed = false }   // a, b: nodes, -1 for a closed loop
    var nodes: [Node] = []
    var edges: [Edge] = []
    let width: Int

    init(_ mask: [UInt8], width w: Int, height h: Int) {
        width = w
        var nodeOf = [Int32](repeating: -1, count: w * h)
        var isNode = [Bool](repeating: false, count: w * h)
        var junction: [Int] = []
        for y in 1..<(h - 1) {
            for x in 1..<(w - 1) where mask[y * w + x] != 0 {
                let n = InkStrokes.ring(mask, y * w + x, w)
                if n.nonzeroBitCount == 1 { isNode[y * w + x] = true }
                if InkStrokes.transitions(n) >= 3 { junction.append(y * w + x) }
            }
        }
        // A junction with the skeleton around it, so that the lines leaving it start apart.
        for p in junction {
            isNode[p] = true
            for q in Self.around(p, w) where mask[q] != 0 { isNode[q] = true }
        }
        // Junction pixels that touch are one node.
        for start in 0..<(w * h) where isNode[start] && nodeOf[start] < 0 {
            let id = Int32(nodes.count)
            var pixels: [Int] = [], stack = [start]
            nodeOf[start] = id
            while let p = stack.popLast() {
                pixels.append(p)
                for q in Self.around(p, w) where isNode[q] && nodeOf[q] < 0 { nodeOf[q] = id; stack.append(q) }
            }
            let x = Float(pixels.reduce(0) { $0 + $1 % w }) / Float(pixels.count)
            let y = Float(pixels.reduce(0) { $0 + $1 / w }) / Float(pixels.count)
            nodes.append(Node(pixels: pixels, x: x, y: y))
        }
        var used = [Bool](repeating: false, count: w * h)
        var linked = Set<[Int]>()
        for (id, node) in nodes.enumerated() {
            for s in node.pixels {
                for q in Self.around(s, w) where mask[q] != 0 {
                    if nodeOf[q] >= 0 {
                        // Two nodes side by side: an edge without pixels of its own.
                        let other = Int(nodeOf[q])
                        if other != id && linked.insert([min(id, other), max(id, other)]).inserted {
                            edges.append(Edge(a: id, b: other, pixels: []))
                        }
                        continue
                    }
                    guard !used[q] else { continue }
                    var path = [q], previous = s, current = q
                    used[q] = true
                    var end = -1
                    walk: while true {
                        var next = -1
                        for r in Self.around(current, w) where mask[r] != 0 && r != previous {
                            if nodeOf[r] >= 0 && (Int(nodeOf[r]) != id || path.count > 2) { end = Int(nodeOf[r]); break walk }
                            if nodeOf[r] < 0 && !used[r] { next = r }
                        }
                        guard next >= 0 else { break }
                        used[next] = true
                        path.append(next)
                        previous = current
                        current = next
                    }
                    edges.append(Edge(a: id, b: end, pixels: path))
                }
            }
        }
        // Closed loops without a node (an O on its own).
        for start in 0..<(w * h) where mask[start] != 0 && nodeOf[start] < 0 && !used[start] {
            var path: [Int] = [], stack = [start]
            used[start] = true
            while let p = stack.popLast() {
                path.append(p)
                for q in Self.around(p, w) where mask[q] != 0 && !used[q] && nodeOf[q] < 0 { used[q] = true; stack.append(q) }
            }
            edges.append(Edge(a: -1, b: -1, pixels: path))
        }
    }

    static func around(_ p: Int, _ w: Int) -> [Int] {
        [p - w, p - w + 1, p + 1, p + w + 1, p + w, p + w - 1, p - 1, p - w - 1]
    }

    /// The live edges at each node, once per end (a loop from a node back to it twice).
    func ends() -> [[(edge: Int, atA: Bool)]] {
        var out = [[(edge: Int, atA: Bool)]](repeating: [], count: nodes.count)
        for (e, edge) in edges.enumerated() where !edge.removed {
            if edge.a >= 0 { out[edge.a].append((e, true)) }
            if edge.b >= 0 { out[edge.b].append((e, false)) }
        }
        return out
    }

    /// Drops edges shorter than `spur` pixels from a junction to an end, until none is left.
    mutating func prune(spur: Float) {
        var changed = true
        while changed {
            changed = false
            let at = ends()
            for (e, edge) in edges.enumerated() where !edge.removed && edge.a >= 0 && edge.b >= 0 && edge.a != edge.b {
                let da = at[edge.a].count, db = at[edge.b].count
                guard (da == 1) != (db == 1), Float(edge.pixels.count + 1) < spur, max(da, db) >= 3 else { continue }
                edges[e].removed = true
                nodes[da == 1 ? edge.a : edge.b].removed = true
                changed = true
                break
            }
        }
    }

    /// Makes junctions joined by an edge shorter than `length` pixels one node.
    mutating func mergeJunctions(closerThan length: Float) {
        var changed = true
        while changed {
            changed = false
            let at = ends()
            for (e, edge) in edges.enumerated() where !edge.removed && edge.a >= 0 && edge.b >= 0 && edge.a != edge.b {
                guard at[edge.a].count >= 3, at[edge.b].count >= 3, Float(edge.pixels.count + 1) < length else { continue }
                let keep = edge.a, gone = edge.b
                edges[e].removed = true
                nodes[keep].pixels += nodes[gone].pixels + edge.pixels
                let n = Float(nodes[keep].pixels.count)
                nodes[keep].x = Float(nodes[keep].pixels.reduce(0) { $0 + $1 % width }) / n
                nodes[keep].y = Float(nodes[keep].pixels.reduce(0) { $0 + $1 / width }) / n
                nodes[gone].removed = true
                for k in edges.indices where !edges[k].removed {
                    if edges[k].a == gone { edges[k].a = keep }
                    if edges[k].b == gone { edges[k].b = keep }
                }
                changed = true
                break
            }
        }
    }

    /// Joins the edges that go straight on through each junction into strokes. `reach`: how far
    /// along an edge its direction is taken; `crossing`, `junction`: the largest cosine between two
    /// edges' directions away from a node of four and of three for them to be paired (−1: straight
    /// on). Returns each edge's stroke (−1 for removed edges), the number of strokes, and the
    /// crossings and junctions where edges were paired, with the strokes through each.
    func strokes(reach: Float, crossing: Float, junction: Float) -> (strokeOf: [Int], count: Int, crossings: [(x: Float, y: Float, strokes: Set<Int>)]) {
        var parent = Array(edges.indices)
        func find(_ i: Int) -> Int { var i = i; while parent[i] != i { parent[i] = parent[parent[i]]; i = parent[i] }; return i }
        func union(_ i: Int, _ j: Int) { parent[find(i)] = find(j) }
        let at = ends()
        var joints: [(node: Int, edges: [Int])] = []
        for (id, node) in nodes.enumerated() where !node.removed && at[id].count >= 2 {
            let list = at[id]
            if list.count == 2 { union(list[0].edge, list[1].edge); continue }
            let directions = list.map { direction(edge: $0.edge, fromA: $0.atA, node: node, reach: reach) }
            func cosine(_ i: Int, _ j: Int) -> Float { directions[i].0 * directions[j].0 + directions[i].1 * directions[j].1 }
            var pairs: [(Int, Int)] = []
            if list.count == 4 {
                let options = [[(0, 1), (2, 3)], [(0, 2), (1, 3)], [(0, 3), (1, 2)]]
                func bend(_ pairing: [(Int, Int)]) -> Float { pairing.map { cosine($0.0, $0.1) }.reduce(0, +) }
                let best = options.min { bend($0) < bend($1) }!
                pairs = best.filter { cosine($0.0, $0.1) <= crossing }
            } else {
                var free = Array(list.indices)
                let limit = list.count == 3 ? junction : crossing
                while free.count >= 2 {
                    var best: (Int, Int)?, value: Float = limit
                    for i in free { for j in free where j > i && cosine(i, j) <= value { best = (i, j); value = cosine(i, j) } }
                    guard let (i, j) = best else { break }
                    pairs.append((i, j))
                    free.removeAll { $0 == i || $0 == j }
                }
            }
            for (i, j) in pairs { union(list[i].edge, list[j].edge) }
            if !pairs.isEmpty { joints.append((id, pairs.flatMap { [list[$0.0].edge, list[$0.1].edge] })) }
        }
        var strokeOf = [Int](repeating: -1, count: edges.count)
        var index: [Int: Int] = [:]
        for (e, edge) in edges.enumerated() where !edge.removed && !edge.pixels.isEmpty {
            let root = find(e)
            if index[root] == nil { index[root] = index.count }
            strokeOf[e] = index[root]!
        }
        let crossings = joints.map { joint in
            (x: nodes[joint.node].x, y: nodes[joint.node].y, strokes: Set(joint.edges.compactMap { index[find($0)] }))
        }.filter { $0.strokes.count >= 2 }
        return (strokeOf, index.count, crossings)
    }

    /// The unit vector from `node` to the point `reach` pixels along the edge (or its far end).
    func direction(edge e: Int, fromA: Bool, node: Node, reach: Float) -> (Float, Float) {
        let pixels = fromA ? edges[e].pixels : edges[e].pixels.reversed()
        guard !pixels.isEmpty else { return (0, 0) }
        let p = pixels[min(pixels.count - 1, Int(reach))]
        let dx = Float(p % width) - node.x, dy = Float(p / width) - node.y
        let n = max((dx * dx + dy * dy).squareRoot(), 1e-6)
        return (dx / n, dy / n)
    }
}

extension SkeletonGraph {
    /// The live edges as paths of (x, y) pixel centres, each from its first node's centre through
    /// every `step`-th pixel to its last node's centre; a closed loop comes back to its start.
    func polylines(step: Int = 2) -> [[(x: Float, y: Float)]] {
        edges.filter { !$0.removed }.compactMap { edge in
            var path: [(x: Float, y: Float)] = []
            if edge.a >= 0 { path.append((nodes[edge.a].x, nodes[edge.a].y)) }
            for (k, p) in edge.pixels.enumerated() where k % step == 0 || k == edge.pixels.count - 1 {
                path.append((Float(p % width), Float(p / width)))
            }
            if edge.b >= 0 { path.append((nodes[edge.b].x, nodes[edge.b].y)) } else if edge.a < 0, let first = path.first { path.append(first) }
            return path.count >= 2 ? path : nil
        }
    }
}
