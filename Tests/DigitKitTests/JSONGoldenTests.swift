@testable import DigitKit
import Foundation
import XCTest

/// The exact text of the JSON that DigitKit publishes: the lines of `digits recognize --json`,
/// the objects of `digits eval --json` and a weight file's `layers` metadata. Built from fixed
/// values, so the expected text holds on any machine.
final class JSONGoldenTests: XCTestCase {
    static let awkward = "q\"b\\s/\u{0}\u{8}\t\n\u{C}\r\u{1F}\u{7F} é 漢 🙂"

    func testRecognitionJSONLine_IsTheSameText() {
        var r = Recognition(digit: 7, confidence: 0.993_456_7, probabilities: [], top: [(7, 0.993_456_7), (1, 0.004_1), (9, 1.5e-7)],
                            raster: [], isEmpty: false, threshold: 0.9)
        XCTAssertEqual(r.jsonLine(source: Self.awkward, index: 3, label: "7"), "{\"source\":\"q\\\"b\\\\s/\\u0000\\u0008\\t\\n\\u000c\\r\\u001f\u{7F} é 漢 🙂\",\"index\":3,\"digit\":7,\"confidence\":0.993457,\"top\":[[7,0.993457],[1,0.0041],[9,1.5e-07]],\"label\":\"7\"}")
        r.digit = nil
        r.confidence = .nan
        r.top = [(4, .infinity), (0, 0)]
        XCTAssertEqual(r.jsonLine(source: "a.jsonl", index: 0, label: Self.awkward), "{\"source\":\"a.jsonl\",\"index\":0,\"digit\":null,\"confidence\":null,\"top\":[[4,null],[0,0]],\"label\":\"q\\\"b\\\\s/\\u0000\\u0008\\t\\n\\u000c\\r\\u001f\u{7F} é 漢 🙂\"}")
        let empty = Recognition(digit: nil, confidence: 0, probabilities: [], top: [], raster: [], isEmpty: true, threshold: 0.9)
        XCTAssertEqual(empty.jsonLine(source: "", index: 12, label: nil), "{\"source\":\"\",\"index\":12,\"digit\":null,\"confidence\":0,\"top\":[],\"empty\":true}")
    }

    func testNumberReadingJSONLine_IsTheSameText() {
        let two = ReadDigit(digit: 2, confidence: 0.991_234, notADigit: 0, top: [(2, 0.991_234), (7, 0.004), (3, 0.001)],
                            box: InkBox(x0: 12, y0: 30.25, x1: 61, y1: 118), strokes: [0, 1])
        var unsure = ReadDigit(digit: nil, confidence: 0.5, notADigit: 0.125, top: [(0, 0.5), (6, 0.25)],
                               box: InkBox(x0: -1.5, y0: 0, x1: 1e7, y1: .nan), strokes: [])
        unsure.isCutByFrame = true
        let one = NumberReading(digits: [two, unsure], threshold: 0.9)
        XCTAssertEqual(one.jsonLine(source: "n.json", index: 1, label: Self.awkward), "{\"source\":\"n.json\",\"index\":1,\"text\":\"2?\",\"digit\":null,\"confidence\":0.495617,\"top\":[],\"digits\":[{\"digit\":2,\"confidence\":0.991234,\"top\":[[2,0.991234],[7,0.004],[3,0.001]],\"box\":[12,30.25,61,118],\"strokes\":[0,1]},{\"digit\":null,\"confidence\":0.5,\"top\":[[0,0.5],[6,0.25]],\"box\":[-1.5,0,1e+07,null],\"strokes\":[],\"not_a_digit\":0.125,\"cut_by_frame\":true}],\"label\":\"q\\\"b\\\\s/\\u0000\\u0008\\t\\n\\u000c\\r\\u001f\u{7F} é 漢 🙂\"}")
        var lines = NumberReading(lines: [one, NumberReading(digits: [two], threshold: 0.9)])
        lines.marks = [InkBox(x0: 1, y0: 2, x1: 3.5, y1: 4)]
        XCTAssertEqual(lines.jsonLine(source: "page.jpg", index: 0, label: nil), "{\"source\":\"page.jpg\",\"index\":0,\"text\":\"2? 2\",\"digit\":null,\"confidence\":0.491272,\"top\":[],\"digits\":[{\"digit\":2,\"confidence\":0.991234,\"top\":[[2,0.991234],[7,0.004],[3,0.001]],\"box\":[12,30.25,61,118],\"strokes\":[0,1],\"line\":0},{\"digit\":null,\"confidence\":0.5,\"top\":[[0,0.5],[6,0.25]],\"box\":[-1.5,0,1e+07,null],\"strokes\":[],\"not_a_digit\":0.125,\"cut_by_frame\":true,\"line\":0},{\"digit\":2,\"confidence\":0.991234,\"top\":[[2,0.991234],[7,0.004],[3,0.001]],\"box\":[12,30.25,61,118],\"strokes\":[0,1],\"line\":1}],\"marks\":[[1,2,3.5,4]]}")
        XCTAssertEqual(NumberReading(digits: [two], threshold: 0.9).jsonLine(source: "d.json", index: 2, label: "2"), "{\"source\":\"d.json\",\"index\":2,\"text\":\"2\",\"digit\":2,\"confidence\":0.991234,\"top\":[[2,0.991234],[7,0.004],[3,0.001]],\"digits\":[{\"digit\":2,\"confidence\":0.991234,\"top\":[[2,0.991234],[7,0.004],[3,0.001]],\"box\":[12,30.25,61,118],\"strokes\":[0,1]}],\"label\":\"2\"}")
        XCTAssertEqual(NumberReading.empty(threshold: 0.9).jsonLine(source: "e.json", index: 0, label: nil), "{\"source\":\"e.json\",\"index\":0,\"text\":\"\",\"digit\":null,\"confidence\":0,\"top\":[],\"digits\":[],\"empty\":true}")
    }

    func testEvaluationReportJSON_IsTheSameText() {
        var probabilities: [Float] = []
        let labels = [0, 1, 2, 3, 3, 7, 9, 9]
        for (i, label) in labels.enumerated() {
            var p = [Float](repeating: 0.01, count: 10)
            p[i % 3 == 0 ? (label + 1) % 10 : label] = 0.91 - Float(i) / 50
            probabilities += p
        }
        let report = EvaluationReport(probabilities: probabilities, labels: labels, threshold: 0.85, temperature: 1.25)
        XCTAssertEqual(report.json, "{\"count\":8,\"threshold\":0.8500000238418579,\"temperature\":1.25,\"accuracy\":0.625000,\"coverage\":0.500000,\"selective_accuracy\":0.500000,\"answered_wrong\":2,\"held_back_by_not_a_digit\":4,\"ece\":0.215000,\"nll\":1.841215,\"precision\":[0.000000,0.500000,1.000000,1.000000,0.000000,0.000000,0.000000,1.000000,0.000000,1.000000],\"recall\":[0.000000,1.000000,1.000000,0.500000,0.000000,0.000000,0.000000,1.000000,0.000000,0.500000],\"confusion\":[[0,1,0,0,0,0,0,0,0,0],[0,1,0,0,0,0,0,0,0,0],[0,0,1,0,0,0,0,0,0,0],[0,0,0,1,1,0,0,0,0,0],[0,0,0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,1,0,0],[0,0,0,0,0,0,0,0,0,0],[1,0,0,0,0,0,0,0,0,1]]}")
        XCTAssertEqual(EvaluationReport(probabilities: [], labels: [], threshold: 0.9, temperature: 1).json, "{\"count\":0,\"threshold\":0.8999999761581421,\"temperature\":1,\"accuracy\":0.000000,\"coverage\":0.000000,\"selective_accuracy\":1.000000,\"answered_wrong\":0,\"held_back_by_not_a_digit\":0,\"ece\":0.000000,\"nll\":0.000000,\"precision\":[0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000],\"recall\":[0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000],\"confusion\":[[0,0,0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0,0,0]]}")
    }

    func testNumberEvaluationReportJSON_IsTheSameText() {
        let two = ReadDigit(digit: 2, confidence: 0.95, notADigit: 0, top: [(2, 0.95)], box: InkBox(x0: 0, y0: 0, x1: 1, y1: 1), strokes: [0])
        let unsure = ReadDigit(digit: nil, confidence: 0.123_456_79, notADigit: 0.5, top: [(6, 0.123_456_79)],
                               box: InkBox(x0: 1, y0: 0, x1: 2, y1: 1), strokes: [1])
        var report = NumberEvaluationReport()
        report.add(NumberReading(digits: [two, two], threshold: 0.9), label: "22", source: "a.json")
        report.add(NumberReading(digits: [two, unsure], threshold: 0.9), label: "26", source: Self.awkward)
        report.add(NumberReading(digits: [two], threshold: 0.9), label: "25", source: "c.json")
        report.add(NumberReading(digits: [unsure], threshold: 0.9), label: "nothing", source: "d.json")
        XCTAssertEqual(report.json, "{\"numbers\":3,\"exact_match\":0.6666666666666666,\"digit_accuracy\":0.8333333333333334,\"coverage\":0.6666666666666666,\"selective_accuracy\":0.5,\"answered_wrong\":1,\"splits\":0,\"merges\":1,\"called_not_a_digit\":1,\"held_back_by_not_a_digit\":0,\"wrong_scored_lower\":0,\"wrong_not_reached\":0,\"wrong_not_among_candidates\":0,\"non_numbers\":1,\"refusal_rate\":1,\"refused_as_not_a_digit\":1,\"non_numbers_held_back_by_not_a_digit\":0,\"threshold\":0.8999999761581421,\"errors\":0,\"exact\":2,\"answered\":2,\"answered_right\":1,\"not_answered_wrong\":0,\"by_length\":[{\"digits\":2,\"count\":3,\"exact\":2,\"answered\":2,\"answered_right\":1,\"exact_match\":0.6666666666666666,\"coverage\":0.6666666666666666,\"selective_accuracy\":0.5}],\"worst\":[{\"source\":\"c.json\",\"label\":\"25\",\"text\":\"2\",\"best\":\"2\",\"confidence\":0.95,\"answered\":true,\"number\":true}]}")
    }

    func testLayersJSON_IsTheSameText() {
        XCTAssertEqual(LayerKinds.json(Architecture.standard()), "[{\"type\":\"conv2d\",\"weight\":\"conv1.weight\",\"bias\":\"conv1.bias\",\"stride\":1,\"padding\":2},{\"type\":\"batchnorm2d\",\"weight\":\"bn1.weight\",\"bias\":\"bn1.bias\",\"running_mean\":\"bn1.running_mean\",\"running_var\":\"bn1.running_var\",\"eps\":1e-05},{\"type\":\"relu\"},{\"type\":\"maxpool2d\",\"kernel\":2,\"stride\":2},{\"type\":\"conv2d\",\"weight\":\"conv2.weight\",\"bias\":\"conv2.bias\",\"stride\":1,\"padding\":1},{\"type\":\"batchnorm2d\",\"weight\":\"bn2.weight\",\"bias\":\"bn2.bias\",\"running_mean\":\"bn2.running_mean\",\"running_var\":\"bn2.running_var\",\"eps\":1e-05},{\"type\":\"relu\"},{\"type\":\"conv2d\",\"weight\":\"conv3.weight\",\"bias\":\"conv3.bias\",\"stride\":1,\"padding\":1},{\"type\":\"batchnorm2d\",\"weight\":\"bn3.weight\",\"bias\":\"bn3.bias\",\"running_mean\":\"bn3.running_mean\",\"running_var\":\"bn3.running_var\",\"eps\":1e-05},{\"type\":\"relu\"},{\"type\":\"maxpool2d\",\"kernel\":2,\"stride\":2},{\"type\":\"conv2d\",\"weight\":\"conv4.weight\",\"bias\":\"conv4.bias\",\"stride\":1,\"padding\":0},{\"type\":\"batchnorm2d\",\"weight\":\"bn4.weight\",\"bias\":\"bn4.bias\",\"running_mean\":\"bn4.running_mean\",\"running_var\":\"bn4.running_var\",\"eps\":1e-05},{\"type\":\"relu\"},{\"type\":\"flatten\"},{\"type\":\"linear\",\"weight\":\"fc.weight\",\"bias\":\"fc.bias\"}]")
        XCTAssertEqual(LayerKinds.json(Architecture.line()), "[{\"type\":\"conv2d\",\"weight\":\"conv1.weight\",\"bias\":\"conv1.bias\",\"stride\":1,\"padding\":1},{\"type\":\"batchnorm2d\",\"weight\":\"bn1.weight\",\"bias\":\"bn1.bias\",\"running_mean\":\"bn1.running_mean\",\"running_var\":\"bn1.running_var\",\"eps\":1e-05},{\"type\":\"relu\"},{\"type\":\"maxpool2d\",\"kernel\":2,\"stride\":2},{\"type\":\"conv2d\",\"weight\":\"conv2.weight\",\"bias\":\"conv2.bias\",\"stride\":1,\"padding\":1},{\"type\":\"batchnorm2d\",\"weight\":\"bn2.weight\",\"bias\":\"bn2.bias\",\"running_mean\":\"bn2.running_mean\",\"running_var\":\"bn2.running_var\",\"eps\":1e-05},{\"type\":\"relu\"},{\"type\":\"maxpool2d\",\"kernel\":2,\"stride\":2},{\"type\":\"conv2d\",\"weight\":\"conv3.weight\",\"bias\":\"conv3.bias\",\"stride\":1,\"padding\":1},{\"type\":\"batchnorm2d\",\"weight\":\"bn3.weight\",\"bias\":\"bn3.bias\",\"running_mean\":\"bn3.running_mean\",\"running_var\":\"bn3.running_var\",\"eps\":1e-05},{\"type\":\"relu\"},{\"type\":\"conv2d\",\"weight\":\"conv4.weight\",\"bias\":\"conv4.bias\",\"stride\":1,\"padding\":1},{\"type\":\"batchnorm2d\",\"weight\":\"bn4.weight\",\"bias\":\"bn4.bias\",\"running_mean\":\"bn4.running_mean\",\"running_var\":\"bn4.running_var\",\"eps\":1e-05},{\"type\":\"relu\"},{\"type\":\"maxpool2d\",\"kernel\":2,\"stride\":2},{\"type\":\"conv2d\",\"weight\":\"conv5.weight\",\"bias\":\"conv5.bias\",\"stride\":1,\"padding\":1},{\"type\":\"batchnorm2d\",\"weight\":\"bn5.weight\",\"bias\":\"bn5.bias\",\"running_mean\":\"bn5.running_mean\",\"running_var\":\"bn5.running_var\",\"eps\":1e-05},{\"type\":\"relu\"},{\"type\":\"height_flatten\"},{\"type\":\"conv2d\",\"weight\":\"conv6.weight\",\"bias\":\"conv6.bias\",\"stride\":1,\"padding\":0},{\"type\":\"batchnorm2d\",\"weight\":\"bn6.weight\",\"bias\":\"bn6.bias\",\"running_mean\":\"bn6.running_mean\",\"running_var\":\"bn6.running_var\",\"eps\":1e-05},{\"type\":\"relu\"},{\"type\":\"conv2d\",\"weight\":\"conv7.weight\",\"bias\":\"conv7.bias\",\"stride\":1,\"padding\":1},{\"type\":\"batchnorm2d\",\"weight\":\"bn7.weight\",\"bias\":\"bn7.bias\",\"running_mean\":\"bn7.running_mean\",\"running_var\":\"bn7.running_var\",\"eps\":1e-05},{\"type\":\"relu\"},{\"type\":\"conv2d\",\"weight\":\"conv8.weight\",\"bias\":\"conv8.bias\",\"stride\":1,\"padding\":1},{\"type\":\"batchnorm2d\",\"weight\":\"bn8.weight\",\"bias\":\"bn8.bias\",\"running_mean\":\"bn8.running_mean\",\"running_var\":\"bn8.running_var\",\"eps\":1e-05},{\"type\":\"relu\"},{\"type\":\"conv2d\",\"weight\":\"conv9.weight\",\"bias\":\"conv9.bias\",\"stride\":1,\"padding\":0}]")
        var linear = Linear(Self.awkward, outCount: 3)
        linear.bias = nil
        let layers: [any Layer] = [BatchNorm2D("bn", eps: 0.001), AvgPool2D(kernel: 3, stride: 1), MaxPool2D(), Dropout(0.5),
                                   GlobalAvgPool(), Flatten(), linear]
        XCTAssertEqual(LayerKinds.json(layers), "[{\"type\":\"batchnorm2d\",\"weight\":\"bn.weight\",\"bias\":\"bn.bias\",\"running_mean\":\"bn.running_mean\",\"running_var\":\"bn.running_var\",\"eps\":0.001},{\"type\":\"avgpool2d\",\"kernel\":3,\"stride\":1},{\"type\":\"maxpool2d\",\"kernel\":2,\"stride\":2},{\"type\":\"global_avgpool\"},{\"type\":\"flatten\"},{\"type\":\"linear\",\"weight\":\"q\\\"b\\\\s/\\u0000\\u0008\\t\\n\\u000c\\r\\u001f\u{7F} é 漢 🙂.weight\"}]")
    }
}
