import OpsrunCore
import Testing

/// XXH64 as the reference implementation computes it (the vectors are python-xxhash 4.1.0's
/// `xxh64(data, seed).intdigest()`): every path of the function, from the empty input through the
/// 1-, 4- and 8-byte tails to several 32-byte stripes.
@Suite struct XXHash64Tests {
    static let quickFox = Array(String(repeating: "The quick brown fox jumps over the lazy dog", count: 3).utf8)

    @Test(arguments: [
        ([UInt8](), UInt64(0), UInt64(0xEF46_DB37_51D8_E999)),
        ([UInt8](), 1, 0xD5AF_BA13_36A3_BE4B),
        (Array("a".utf8), 0, 0xD24E_C4F1_A98C_6E5B),
        (Array("a".utf8), 1, 0xDEC2_BC81_C3CD_46C6),
        (Array("abc".utf8), 0, 0x44BC_2CF5_AD77_0999),
        (Array("abc".utf8), 1, 0xBEA9_CA81_9932_8908),
        (Array("0123456789abcdef0123456789abcdef".utf8), 0, 0x642A_9495_8E71_E6C5),
        (Array("0123456789abcdef0123456789abcdef".utf8), 1, 0x048B_8B58_0878_A4A4),
        (quickFox, 0, 0xC652_B4DB_FCD6_B853),
        (quickFox, 1, 0x529A_DFF3_F899_9249),
    ])
    func matchesTheReference(bytes: [UInt8], seed: UInt64, expected: UInt64) {
        #expect(XXHash64.hash(bytes, seed: seed) == expected)
    }

    /// Bytes 0, 1, 2, … of each length: the tails after whole stripes in every combination.
    @Test(arguments: [
        (5, UInt64(0xDD02_7438_6E26_030C)), (9, 0x67D8_5784_A7C7_8C5B), (12, 0x424A_F23F_1F08_DCA5),
        (13, 0x13D1_7C4C_7797_23A8), (33, 0x0C53_5D1A_CAFB_8EAD), (40, 0xF5DA_40F1_B117_41E9),
        (63, 0xE26A_A9E2_A95F_8E4F), (64, 0xF7C6_7301_DB67_13F0), (65, 0xC31E_B63B_2AE4_465B),
        (100, 0x6AC1_E580_3216_6597), (1000, 0x6EF4_36B0_0EBA_4078),
    ])
    func everyTailLength(count: Int, expected: UInt64) {
        let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0) }
        #expect(XXHash64.hash(bytes) == expected)
    }

    @Test func theManifestDigestIsBothSeedsLittleEndian() {
        #expect(XXHash64.digest128(Array("abc".utf8))
            == [0x99, 0x09, 0x77, 0xAD, 0xF5, 0x2C, 0xBC, 0x44, 0x08, 0x89, 0x32, 0x99, 0x81, 0xCA, 0xA9, 0xBE])
    }
}
